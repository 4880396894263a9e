"""``xla-translation-rule``: XlaBuilder translation rules built on
``xla_client.ops.CustomCall`` / ``CustomCallWithLayout`` become MLIR lowering rules.

Legacy form
    A translation rule ``rule(ctx, avals_in, avals_out, *operands, **params)`` registered
    with ``xla.register_translation(prim, rule, platform=...)``, or a builder rule
    ``rule(c, *operands, **params)`` registered with
    ``xla.backend_specific_translations[platform][prim] = rule`` /
    ``xla.translations[prim] = rule``, returning
    ``xla_client.ops.CustomCallWithLayout(c, b"target", operands=(...),
    shape_with_layout=Shape.array_shape(dtype, dims, minor_to_major),
    operand_shapes_with_layout=(...), opaque=b"...")``, with scalar operands from
    ``ops.ConstantLiteral(c, value)``. Rules written for the ComputationBuilder that
    translation rules received in 2020 call the builder's own methods instead:
    ``c.CustomCall(b"target", operands=(...), shape_with_layout=...,
    operand_shapes_with_layout=(...), opaque=b"...")`` (or ``c.CustomCallWithLayout``),
    with scalar operands from ``c.ConstantS32Scalar(value)``.

Removed
    Translation rules were removed in jax 0.4.29 and ``xla_client.ops`` in 0.6.0;
    ``jax.lib.xla_client`` itself went in 0.9.0 (``ImportError: cannot import name
    'xla_client' from 'jax.lib'``).

Replacement (minimum jax 0.5.0)
    An MLIR lowering rule ``rule(ctx, *operands, **params)`` registered with
    ``mlir.register_lowering(prim, rule, platform=...)``, returning
    ``jax.ffi.ffi_lowering("target", api_version=1, backend_config=opaque,
    operand_layouts=..., result_layouts=...)(ctx, *operands)``:

    ======================================  ==============================================
    XlaBuilder                               MLIR lowering rule
    ======================================  ==============================================
    ``b"target"``                            ``"target"`` (a non-literal name is decoded
                                             at run time when it is ``bytes``)
    ``name.encode()`` (or ``"utf8"``,        ``name``: only ``str`` has ``encode``, and
    ``"ascii"``)                             the bytes decode back to it
    ``opaque=``                              ``backend_config=`` (bytes pass unchanged)
    ``api_version=`` absent /                ``api_version=1`` (ORIGINAL, the ``ops``
    ``CustomCallApiVersion.API_VERSION_*``   default) / 1, 2, 3, 4
    ``Shape.array_shape(dt, dims, m2m)``     its ``minor_to_major`` layout ``m2m``
                                             (``None``, the row-major default, without one)
    ``Shape.tuple_shape((s1, s2))``          ``(m2m1, m2m2)``, one layout per result
    ``ops.ConstantLiteral(c, v)`` or         ``mlir.ir_constant(np.asarray(v))``, and
    ``ops.Constant(c, v)``                   ``ctx.replace(avals_in=...)`` with its aval,
                                             so layouts line up with the operands
    the builder methods ``c.CustomCall``     as ``ops.CustomCallWithLayout(c, ...)``: both
    and ``c.CustomCallWithLayout``           methods took layouts and no api_version (1)
    ``c.Constant(v)``,                       as ``ops.Constant(c, v)`` with ``v``, or
    ``c.ConstantS32Scalar(v)``               ``np.int32(v)`` (``F32``, ``F64``, ``S64``,
                                             ``Pred``: ``np.float32`` ... ``np.bool_``)
    ``c.get_shape(x)`` (x an operand;        ``ctx.avals_in[i]``; ``.dimensions()`` ->
    the older builder's ``c.GetShape(x)``)   ``.shape``, ``.element_type()`` (and
                                             ``.numpy_dtype()``) -> ``.dtype``;
                                             used as a layout: ``None`` (row-major), also
                                             in ``[c.get_shape(x) for x in operands]``
                                             or as ``f(shape)`` where ``f`` returns
                                             ``tuple(range(len(s.dimensions()) - 1, -1, -1))``;
                                             any other layout computed from it: manual
    ``list(map(c.get_shape, operands))`` or  ``list(ctx.avals_in[k:])`` (``k`` named operands
    ``[c.get_shape(x) for x in operands]``   before ``*operands``; ``tuple(...)`` for a
    or ``tuple(c.get_shape(x) for x in       tuple); each element iterated over, or indexed
    operands)`` (``operands`` the rule's     by any expression (``shapes[0].dimensions()``,
    ``*operands``)                           ``shapes[s["coords"][0]]``), maps as one
                                             ``c.get_shape(x)`` does
    ``(const,) + operands``, ``*ops[::-1]``  the same concatenation / slice of the avals in
                                             ``ctx.replace(avals_in=...)``
    ``operands=tuple()`` and                 a call without operands, ``(...)(ctx)``, its
    ``operand_shapes_with_layout=tuple()``   operand layouts ``tuple()``
    ``shapes = (c.get_shape(a), ...)``       a tuple of the avals; ``shapes[0].dimensions()``
                                             and an iterated element's methods as above; a
                                             ``get_shape`` whose value goes anywhere else
                                             (concatenated, passed on): manual
    ``n = helper(c, v)``, ``helper`` a       ``n = <the helper's NumPy value>``; each operand
    constant helper (another module's too)   use ``mlir.ir_constant(np.asarray(n))``
    ``c = _unpack_builder(c)`` (a helper,    dropped (the builder is gone)
    here or imported, returning
    ``getattr(c, "_builder", c)``)
    ``return ops.Tuple(c, [x, token])``,     ``return [x, token]`` (the rule's results)
    elements operands of the rule
    ``out = ops.CustomCall(..., shape=       ``out = ffi_lowering(...)(ctx.replace(avals_out=
    Shape.tuple_shape([s1, s2]))`` and       [ShapedArray(dims1, dt1), ...]), ...)`` and
    ``return ops.GetTupleElement(out, k)``   ``return [out[k]]``: the kernel still writes
    (the other results scratch buffers;      every buffer; ``si`` must be
    veros's tridiagonal solver)              ``Shape.array_shape(dt, dims[, layout])`` of
                                             names the rule still has
    ``operand_shapes_with_layout=(s,) * 4``  ``operand_layouts=(layout,) * 4``
    or ``tuple(s for _ in operands)``        or ``tuple(layout for _ in operands)``
    layouts from a module helper returning   no layouts (ffi_lowering's row-major default);
    only row-major shapes (``array_shape(d,  the bindings of the shapes, an ``if`` choosing
    s, tuple(range(len(s) - 1, -1, -1)))``   between them and the private helper go (a
    or ``scalar_shape(d)``), bound, indexed  private method once no module of the
    or in ``tuple_shape``, for operands and  package names it elsewhere)
    result alike; also a ``@staticmethod``
    (or ``self``-free method) of the rule's
    class, called as ``self.helper(specs)``
    ``c: XlaBuilder``, ``x: XlaOp``,         annotations dropped (with their import once
    ``ctx: xla.TranslationContext``,         unused): the rule receives ctx and MLIR values,
    ``-> Sequence[xla.XlaOp]``               and evaluated at definition they fail on import
    ``avals_in`` / ``avals_out``             ``ctx.avals_in`` / ``ctx.avals_out``
    ``[Shape.array_shape(*a) for a in        no layouts, as above; the bindings of the
    zip(dtypes, shapes, map(f, shapes))]``,  shapes, the map and ``f`` go (jambax,
    ``f`` a lambda returning ``range(len(s)  numba4jax: result shapes from the abstract
    - 1, -1, -1)``, and the operands' own    evaluation); also when the name is bound
    builder shapes as their layouts          again to its ``Shape.tuple_shape`` (BrainPy):
                                             the binding that reaches the call counts
    ``operands=tuple(ins)``, ``ins`` the     ``*ins``, the same operands in order
    rule's ``*ins``
    ``helper(s)``, ``s`` an operand's        ``ShapedArray(s.shape, s.dtype)``, the same
    builder shape, ``helper`` (this module's aval (``s`` is the aval now)
    or another's) returning ``ShapedArray(
    s.dimensions(), s.element_type())``
    a nested function reading nothing the    left as it is (the numba bridges' ``@numba.
    rewrite changes (builder, operands,      cfunc`` kernel, built from plain dimensions
    shapes, avals, results, xla_client)      and dtypes)
    ``(c.get_shape(a).dimensions() for a   ``(a.shape for a in ctx.avals_in[k:])``,
    in operands)``, ``c.get_shape(           ``ctx.avals_in[k + i]`` (celerite2)
    operands[i])`` (``*operands``)
    ``tuple(ops.ConstantLiteral(c, f(v))     ``tuple(mlir.ir_constant(np.asarray(f(v)))
    for v in d.values()) + operands``        for ...) + operands``, their avals listed
    (``range(...)``, ``.keys()``/``.items()``   by the same loop (it must give the same
    or a literal display looped over)        elements twice)
    ``return other(spec, c, *operands)``     ``return other(spec, ctx, *operands)``, when
    after plain statements, ``other`` a      ``other`` converts too, registered with as
    rule, both registered with ``partial``   many bound arguments as this rule passes
    ``shape_with_layout=Shape.tuple_shape(   ``_ccmigrate_tuple_lowering(...)``:
    (s,))``, or a tuple of shapes built     ffi_lowering keeping a one-element tuple
    otherwise (numba bridges)                a tuple, its element the result [T]
    ======================================  ==============================================

    [T] XlaBuilder's custom call with a tuple shape had one tuple-shaped result; MLIR's
    custom call with several results is the same in XLA, but with one result it is that
    array itself. On CPU a kernel of the legacy signature ``void(void* out, const void**
    in)`` reaches its outputs through the tuple's table of pointers: handed the array, it
    writes through the data as if it were that table (garbage, or a crash, seen with a
    one-result Python kernel through the migrated jambax-style bridge). So a tuple of one
    shape, or of as many as the rule computes, goes through a module-level helper: with
    one result it calls ``jax.ffi.ffi_lowering(..., result_types=[TupleType.get_tuple(
    [type])])`` and returns ``hlo.get_tuple_element(result, 0)``, layouts kept (XLA lays
    out the element); with several it is ffi_lowering as it stands. A literal tuple of two
    or more shapes keeps ffi_lowering's several results directly.

    ``c`` is the builder of a builder rule, or ``ctx.builder`` (or a name bound to it) in
    a translation rule; a builder method is converted only on it (``other.CustomCall``
    stays manual).

    A translation registration for a primitive that the module also gives an MLIR lowering
    (same platform, or all platforms) is dropped: jax always preferred the MLIR rule. The
    primitive must be the same binding: two helpers that each register their own parameter
    ``primitive`` (one with ``mlir.register_lowering``, one with a translation rule) are
    alternatives a caller picks between, so the translation registration is converted.

    ``ops.CustomCall`` (no layouts) becomes ``skip_ffi_layout_processing=True`` (jax 0.7.0)
    so the op carries no layouts, as before; its ``shape=`` goes, and with it the statement
    ``sh = Shape.array_shape(...)`` (or ``tuple_shape``) that only that keyword read.
    Result types come from ``ctx.avals_out``, which the legacy rule's shapes had to match.

    A rule may be defined inside a factory function next to its registration (the name
    registered is looked up where the registration sees it) and read closure variables
    such as the kernel name or the platform. Each custom call is returned directly
    (``return op`` from a builder rule, ``return [op]`` from a translation rule) or bound
    to a name that is only returned (``r = op; return r``, ``op_ = [op]`` in each branch of
    an ``if``/``elif`` then ``return op_``, ``out = op; return [out]``); the ``[op]`` list
    becomes the results ``ffi_lowering`` returns. Operands are parameters of the rule,
    constants, or a tuple bound once in the rule (``operands=base`` or ``(dims, *base)``,
    passed on as ``*base``), constant helpers' calls ``helper(c, v)`` included (mpi4jax
    0.2's ``operands = (nitems, x, _constant_u64_scalar(c, comm), token)``). A constant
    bound to a name (``dims = ops.ConstantLiteral(c, v)``; also a name the rule bound
    before to something else, such as the shape tuple, when
    the constant's is its last binding) becomes ``dims = np.asarray(v)``, evaluated where it was, and the operand
    ``mlir.ir_constant(np.asarray(dims))`` with aval ``ShapedArray(dims.shape, dims.dtype)``. Layouts
    may come from a list (or list comprehension) of ``Shape.array_shape`` passed whole or
    spread (``(s, *shapes)``) or concatenated (``(s1, s2) + shapes``), one shape may be
    replicated for a variadic tail of operands (``tuple(s for _ in params)``) and named
    again (``out_shape = s``). An operand ``helper(c, x)`` where ``helper``, defined in
    this module, only returns ``ops.Constant(c, expr)`` becomes
    ``mlir.ir_constant(np.asarray(expr))`` with ``x`` written in (only for a plain ``x``:
    a name, an attribute or a number, so nothing is evaluated twice); a private helper
    left without calls is removed, since it would keep the module importing xla_client;
    so is such a private helper that nothing called in the first place. A rule whose body only raises becomes
    ``rule(ctx, *operands, **params)`` raising the same, so jax reports that exception;
    so does one that cannot return (no ``return``, a ``raise`` last) and reads none of its
    parameters (netket's GPU stand-in for a numba kernel, which prints a debug line first).

    A rule whose body only hands its builder on, ``return _helper(c, *operands)`` (or
    ``return [_helper(ctx.builder, *operands)]``), as old jaxlib's linalg rules did: the
    private module function ``_helper`` is converted as a builder rule and called with
    ``ctx``, when its parameters take the rule's operands one for one and every use of it
    is such a rule (any other caller would still hand it an XlaBuilder). Old jax's
    ``c = _unpack_builder(c)`` (``getattr(c, "_builder", c)``) is dropped with the
    builder, and the private unwrapping helper once nothing calls it.

    ``xla.lower_fun(f, multiple_results=m)`` registered for a primitive (as a builder rule,
    in ``xla.translations_with_avals``, per platform, or with ``register_translation``;
    ``new_style=``/``with_avals=`` only matched the registry's calling convention) becomes
    ``mlir.register_lowering(prim, mlir.lower_fun(f, multiple_results=m), platform=...)``:
    both trace ``f`` and emit its operations inline. ``xla.lower_fun`` has been a stub
    raising ``RuntimeError`` since jax 0.3.17 at the latest and is gone from jax 0.4.4;
    ``translations_with_avals`` is gone from jax 0.3.17; ``mlir.lower_fun`` exists in every
    release since. A rule that only returns ``xla.lower_fun(f, ...)(c, *args, **params)``
    (``f`` reading none of its parameters) is registered the same way and removed when the
    registration was its only use (imports at the top of such a rule go with it, and a
    function-local ``from jax.interpreters.xla import lower_fun`` goes once the rewritten
    registration no longer reads it). ``xla.lower_fun(f, instantiate=...)``, the signature
    of the releases that introduced ``multiple_results`` primitives and before
    ``lower_fun`` took ``multiple_results=``, traced ``f`` with every output instantiated
    (the argument was unused) and returned the tuple of its outputs: for a primitive this
    module marks ``multiple_results = True`` it becomes ``mlir.lower_fun(f,
    multiple_results=True)``; without that mark (the older single-result releases
    had the same signature) it stays manual, as do ``initial_style=``, ``backend=`` and
    ``parallel=``.

    The tables themselves (``xla.backend_specific_translations``, ``translations``...)
    read other than in a registration rewritten or reported here (kept in a name,
    searched with ``in``, measured) are reported manual at each read, also when imported
    by name or under another name (``from jax.interpreters.xla import translations as t``),
    with the import kept for them: they are gone, and what the code meant to do with them
    is not in its text.

    A rule that reshapes or transposes its operands or result around the custom call
    (builder rules): each XlaOp becomes an MLIR value and each builder op the StableHLO op
    of the same semantics, ``ops.Reshape(x, dims)`` ->
    ``hlo.reshape(ir.RankedTensorType.get(dims, <x's element type>), x)`` and
    ``ops.Transpose(x, perm)`` -> ``hlo.transpose(x, mlir.dense_int_array(perm))``
    (``hlo`` is ``jax.extend.mlir.dialects.stablehlo``); a constant is
    ``mlir.ir_constant(np.asarray(v))`` where it was built. ``c.get_shape(x)`` becomes
    ``ctx.avals_in[i]`` for an operand the rule never rebinds, else
    ``_ccmigrate_aval(x)``, a module helper reading the aval from the MLIR value's type;
    used as a layout it is ``None`` (XlaBuilder gave those ops the row-major default),
    except for a transposed op, whose permuted layout keeps the rule manual. The custom
    call gets ``ctx.replace(avals_in=[one aval per operand], avals_out=[its result
    shape's aval])`` and its single result (``[0]``); the rule returns ``[result]``. Any
    other builder op (``Sort``, ``Slice``, ``Tuple``, ``GetTupleElement``, ...), a loop
    around them, or an op used other than by these stays manual with the reason.

    A builder rule ``lambda c, *args: ops.Tuple(c, args)`` (or ``lambda c, x, y:
    ops.Tuple(c, [x, y])``, every operand in order) registered for a primitive the module
    marks ``multiple_results = True`` (identity primitives that tie values together for the
    tracer): jax took the XLA tuple apart into the results, which were the operands, so it
    becomes ``mlir.register_lowering(prim, lambda ctx, *args: args)``; the results are the
    operands as before (``mlir.register_lowering`` exists in every release from 0.4.29).
    Without the ``multiple_results`` mark in the module, or with other values in the tuple,
    it stays manual. A builder rule ``lambda c, *args: ops.CreateToken(c)`` (a library's own
    token primitive, mpi4jax 2020) becomes ``lambda ctx, *args: [hlo.create_token()]``, the
    token jax's own ``lax.create_token`` lowering builds. ``xla_client`` reached as
    ``jax.lib.xla_bridge.xla_client`` (the same module) is handled like a direct import of it.

    A translation rule ``rule(ctx, avals_in, avals_out, *operands, **params)`` that builds
    nothing (tagging primitives handing back some of their operands): it keeps its body
    and loses ``avals_in``/``avals_out`` (and their ``del``), annotations naming removed
    XLA types (``TranslationContext``, ``XlaOp``) go. The same values come back, XlaOps
    before and MLIR values now, when the rule never reads its context or avals except to
    delete them, the module never spells ``xla_client``/``xla_extension`` (nothing here
    can build an XLA op), and every call on the way is a builtin that only rearranges
    values (``tuple``, ``zip``, ``len``...) or a function of this module or method of the
    rule's class satisfying the same, transitively. Anything else (a helper from another
    module, a method inherited from a base class, a read of ``avals_in``) stays manual.
    A builder rule of this kind stays manual (its single result would need wrapping), except
    one whose body is only ``return x`` of an operand (a no-op on the backends that need
    none, tessellate-ipu's CPU/GPU rules): it returns ``[x]``, the one result jax made of
    the op.

    A rule registered as ``partial(rule, name, ...)`` keeps its leading bound parameters
    and the partial. A registration inside a local decorator (``def register(prim): def
    decorator(fun): xla.backend_specific_translations[...][prim] = partial(fun, name);
    return fun; return decorator``) covers each function decorated with
    ``@register(...)``, which keeps its decorators: they now register the lowering rule.

    A rule may be a method registered bound to the instance (``self._rule`` or
    ``partial(self._rule, platform="cpu")`` inside a method of the class defining
    ``_rule``): it keeps ``self``, and the registration keeps the partial. Operands may be
    named parameters followed by ``*rest`` (``operands=(handle, *rest)``).

    A rule imported from another module of the project (``from .backends import cpu``,
    registered as ``cpu.encode`` or ``partial(cpu.encode, ...)``, or ``from .backends.cpu
    import encode``) is converted where it is defined, a module-level function (one that
    only hands its builder to a private helper converts with it, as above), and the
    registration becomes ``mlir.register_lowering`` where it is: the project index built
    before any file is migrated tells the defining module who registers the function, in
    which form and with how many arguments bound. Both files change together or neither
    does: when the function cannot be converted (the reasons above), is also used in its
    own module, or either file is not in the run, fails, or has its change suppressed, both
    are reported as manual naming the other file and the reason. A run of the
    registering file alone (no index) reports the module and function to convert there.

    A rule wrapped by a decorator of the project (defined in this module, or imported from
    another module of the package, read there) that returns the rule itself or a wrapper
    ``wrapped(*args, **kwargs)`` whose other statements leave ``args``, ``kwargs`` and the
    rule alone and that ends ``return func(*args, **kwargs)`` (``functools.wraps`` allowed;
    mpi4jax's platform checks) is converted with the decorator kept: the wrapper hands the
    lowering rule its arguments and results just as it did the translation rule's. The
    wrapper may also bind the result first (``res = func(*args); <logging>; return res``),
    take ``*args`` alone (it then served parameterless primitives only, as a translation
    rule too), read ``func.__name__`` for a log line, and come from a decorator factory of
    the module or imported from another module of the package (``@trace("label")``, whose
    ``trace(name)`` returns such a decorator: jax's primitives tutorial's tracer, which a
    cuFFTMp binding keeps in its ``util.py``).

    A rule that only returns elementwise XLA ops over its operands, as jax's primitives
    tutorial's ``multiply_add`` did (``return [ops.Add(ops.Mul(x, y), z)]``), becomes
    ``mlir.lower_fun(lambda x, y, z: jnp.add(jnp.multiply(x, y), z), multiple_results=False)
    (ctx, x, y, z)``: jax lowers those functions to the same StableHLO ops, and for the
    operands XLA accepted (one dtype, equal or size-1 dimensions) jax.numpy's broadcasting
    gives the same result. ``Add``, ``Sub``, ``Mul``, ``Max``, ``Min``, ``Neg``, ``Abs``,
    ``Exp``, ``Log``, ``Sqrt`` and ``Tanh`` are converted; ``Div`` is not (XLA divides
    integers towards zero, jax.numpy does not), nor an op given broadcast dimensions.

    A token threaded through ``ops.CustomCall(..., shape=Shape.tuple_shape([Shape.token_shape()]))``
    and ``return ops.GetTupleElement(out, 0)`` (mpi4jax) keeps that op: ``ffi_lowering(...,
    skip_ffi_layout_processing=True, result_types=[ir.TupleType.get_tuple([hlo.TokenType.get()])])``
    and ``return [hlo.get_tuple_element(out[0], 0)]`` (the kernel's ``out`` is still a tuple of
    buffers). A token among several results or as an operand has the layout ``()``.

    A constant helper ``helper(c, v): return xla_client.ops.Constant(c, <value>)`` defined
    in another module of the project (mpi4jax's ``utils.xla_constant_intc``) is inlined like
    one of this module: its value read from that module, whose NumPy alias is spelt as this
    module's; ``np.intc(v)``-style values take any argument, evaluated once, with the aval
    ``ShapedArray((), np.intc)``. In its own module such a public helper that nothing there
    calls returns ``mlir.ir_constant(np.asarray(<value>))`` (safe: its XlaBuilder body could
    not run on a jax without xla_client.ops, and the rules calling it now inline it), so that
    module no longer imports xla_client.

    Everything else is reported as manual with the reason, among them: a rule wrapped by
    any other decorator (what it does to arguments and results is not visible), a token threaded
    through a one-token tuple otherwise (with layouts, or the tuple itself returned: the MLIR
    op would return the token itself, not a tuple), the builder passed to any other helper,
    ``ops.Call``, ``ctx.platform``, ``xla.lower_fun``, the builder or an operand reassigned (a primitive parameter, one of the
    trailing parameters never used as an operand, such as mpi4jax's ``comm = unpack_hashable(comm)``,
    may be: jax passes it by keyword to both kinds of rule; ``c = _unpack_builder(c)`` whose helper's
    module is not found beside the file says so), a builder rule registered with
    ``mlir.register_lowering`` (half a migration: that registration never lowered), a name bound to an XLA shape on some paths
    only, and a list of shapes used as *one element* of ``operand_shapes_with_layout``:
    XlaBuilder raised ``TypeError`` on that call, so it never lowered and the layouts it
    meant are unknown; likewise a literal layout whose length is not the shape's rank, and
    operand and operand-shape displays of different lengths (both ``INVALID_ARGUMENT``). An alias such as ``xops = xla_client.ops`` kept for code left
    manual is reported with it. An alias of a member ``jaxlib.xla_client`` still has
    (``CompileOptions``, ``Traceback``, ``Shape``) works: it goes only with the rules it
    served and is never reported, and neither are Shapes built in a module with no
    XlaBuilder program. Layouts from XLA shapes built outside the rule (a helper returning
    them) or a method inherited from a base class stay manual too: what they hold is not
    visible here. Targets below jax 0.4.29 keep their working translation rules;
    targets below 0.5.0 lack ``jax.ffi`` and get a manual report.

    A registration inside a compatibility guard for older jax (``if jax.__version_info__ <
    ...``, ``hasattr(xla, ...)``, a try whose handler serves old releases) is left as it is
    and reported manual with advice: nothing to migrate when the primitive also has an MLIR
    lowering, or a registration outside the guard that this run migrates to one (the advice
    reads the same on the next run); ``mlir.lower_fun`` for an ``xla.lower_fun`` rule;
    otherwise how to write the lowering outside the branch.

What the kernel receives afterwards
    The same buffers, layouts and opaque bytes through the same ABI (api_version 1
    unless the rule named another): the lowered ``custom_call`` matches what jax 0.4.28
    lowered from the translation rule (checked by ``make test-compat``). ``safe``, except
    ``ops.CustomCall`` on a target below jax 0.7.0, where the op gains explicit
    row-major layouts (XLA's default, but not the same op): ``unsafe``.

Before::

    def _solve_translation(c, a, b, *, n):
        s = xla_client.Shape.array_shape(np.dtype(np.float32), (n,), (0,))
        return xla_client.ops.CustomCallWithLayout(
            c, b"solve_f32", operands=(xla_client.ops.ConstantLiteral(c, n), a, b),
            shape_with_layout=s,
            operand_shapes_with_layout=(xla_client.Shape.array_shape(np.dtype(np.int64), (), ()), s, s))
    xla.backend_specific_translations["cpu"][solve_p] = _solve_translation

After::

    def _solve_translation(ctx, a, b, *, n):
        s = (0,)
        return jax.ffi.ffi_lowering("solve_f32", api_version=1, operand_layouts=((), s, s), result_layouts=[s])(
            ctx.replace(avals_in=[core.ShapedArray(np.shape(n), np.asarray(n).dtype), ctx.avals_in[0], ctx.avals_in[1]]),
            mlir.ir_constant(np.asarray(n)), a, b)
    mlir.register_lowering(solve_p, _solve_translation, platform="cpu")

Before (a rule nested in a factory, the custom call chosen in a branch)::

    def make(p, op_name, platform):
        def rule(ctx, avals_in, avals_out, x, y):
            base = (x, y)
            shapes = [xla_client.Shape.array_shape(a.dtype, a.shape, (0,)) for a in avals_in]
            if platform == "cpu":
                n = xla_client.ops.ConstantLiteral(ctx.builder, np.uint64(4))
                op_ = [xla_client.ops.CustomCallWithLayout(
                    ctx.builder, op_name.encode(), operands=(n, *base),
                    shape_with_layout=xla_client.Shape.array_shape(np.dtype(np.float32), (4,), (0,)),
                    operand_shapes_with_layout=(xla_client.Shape.array_shape(np.dtype(np.uint64), (), ()), *shapes))]
            else:
                raise NotImplementedError(platform)
            return op_
        xla.register_translation(p, rule, platform=platform)

After::

    def make(p, op_name, platform):
        def rule(ctx, x, y):
            base = (x, y)
            shapes = [(0,) for a in ctx.avals_in]
            if platform == "cpu":
                n = np.asarray(np.uint64(4))
                op_ = jax.ffi.ffi_lowering(
                    _ccmigrate_target_name(op_name.encode()),
                    api_version=1,
                    operand_layouts=((), *shapes),
                    result_layouts=[(0,)],
                )(ctx.replace(avals_in=[core.ShapedArray(n.shape, n.dtype), ctx.avals_in[0], ctx.avals_in[1]]), mlir.ir_constant(np.asarray(n)), *base)
            else:
                raise NotImplementedError(platform)
            return op_
        mlir.register_lowering(p, rule, platform=platform)
"""

from __future__ import annotations

import ast
import dataclasses
import functools
import os
import re
from functools import lru_cache
from typing import Callable, Iterator, Optional, Sequence

import libcst as cst
from libcst.helpers import get_full_name_for_node

from codemods import walk
from codemods.rule import IndexEntry, Rule, Safety
from codemods.names import blocks_of
from codemods.positions import NestingTooDeep, python_tree
from codemods.rules._installed_jax import first_missing
from codemods.rules.xla_client_import import REPLACEMENTS as CLIENT_REPLACEMENTS
from codemods.rules._crossmodule import REGISTERS, Registered, defining_file, package_files_mentioning, registrations_elsewhere, where_text
from codemods.rules._shared import (
    SPACED_COMMA,
    TIGHT_EQUAL,
    CallsOf,
    calls_in as _calls_in,
    mutated_in,
    ancestors,
    compatibility_guard,
    dotted_names,
    drop_binding_if_unused,
    head_name,
    heads_importing,
    jax_fallback_guard,
    keyword,
    keyword_value,
    encoded_text,
    literal_bytes_as_str,
    short,
    one_line,
    positional,
    project_module_ast,
    project_module_file,
    qualified_through_alias,
)

#: XlaBuilder's shape query: ``get_shape`` and the ``GetShape`` of the older builder API
#: (``getattr(c, "_builder", c)`` era), both returning an ``xla_client.Shape``.
GET_SHAPE = frozenset({"get_shape", "GetShape"})

#: ``jax.xla`` is the old alias of ``jax.interpreters.xla`` (``from jax import xla``).
XLA_MODULES = ("jax.interpreters.xla", "jax._src.interpreters.xla", "jax.xla")
#: ``jax.lib.xla_bridge.xla_client`` is the same module, imported by xla_bridge.
CLIENT_MODULES = ("jax.lib.xla_client", "jaxlib.xla_client", "jax._src.lib.xla_client", "jax.lib.xla_bridge.xla_client")
#: Those that still import: only their XlaBuilder members are gone.
STILL_IMPORTABLE = ("jaxlib.xla_client", "jax._src.lib.xla_client")
#: ``Shape``'s factories jaxlib 0.10.2 still has (a compiled class: read from the
#: installed jaxlib by a test, not from source). ``from_pyval`` and others are gone.
SHAPE_FACTORIES = ("array_shape", "tuple_shape", "scalar_shape", "token_shape")
CUSTOM_CALLS = frozenset({"CustomCall", "CustomCallWithLayout"})
#: jax.interpreters.xla's registration tables and functions, all gone with translation rules.
TABLES = frozenset({"backend_specific_translations", "translations", "translations_with_avals", "register_translation"})
#: Where XlaBuilder/XlaOp annotations come from besides xla_client.
XLA_TYPE_MODULES = ("jaxlib.xla_extension", "jax.lib.xla_extension", "jax._src.lib.xla_extension")
#: Elementwise XLA ops with the jax.numpy function of the same semantics (for operands of
#: one dtype; jax.numpy's broadcasting covers XLA's implicit degenerate-dimension one), and
#: their arity. ``Div`` is not here: XLA divides integers towards zero, jax.numpy does not.
ELEMENTWISE = {
    "Add": ("add", 2), "Sub": ("subtract", 2), "Mul": ("multiply", 2), "Max": ("maximum", 2), "Min": ("minimum", 2),
    "Neg": ("negative", 1), "Abs": ("abs", 1), "Exp": ("exp", 1), "Log": ("log", 1), "Sqrt": ("sqrt", 1),
    "Tanh": ("tanh", 1),
}
#: Stands for a rule's return annotation among its XlaBuilder-typed parameter names.
RETURNS = "->"
CONSTANTS = frozenset({"ConstantLiteral", "Constant"})
#: Builder ops with a StableHLO op of the same semantics, converted one for one in a rule
#: that reshapes or transposes operands and results around its custom call.
OPS_CONVERTED = frozenset({"Reshape", "Transpose"})
AVAL_HELPER = "_ccmigrate_aval"
#: XLA Shape methods with an aval counterpart: ``dimensions()`` -> ``.shape``, ``element_type()``
#: and ``numpy_dtype()`` -> ``.dtype`` (both gave the NumPy dtype of an array shape; checked on
#: jaxlib 0.4.28).
SHAPE_METHODS = {"dimensions": "shape", "element_type": "dtype", "numpy_dtype": "dtype"}
#: Row-major XLA shapes from a helper (``_shape_with_layout(specs)``), one of them or their
#: tuple: the layouts ffi_lowering gives by default.
ROW_MAJOR_KINDS = ("rowmajor", "rowmajor_seq")
#: What a name may hold that is a sequence of operands' avals once rewritten: the rule's
#: ``*operands``' shapes (``list(map(c.get_shape, operands))``) or a display of them.
AVAL_SEQUENCES = ("avals", "aval_display")
API_VERSIONS = {
    "API_VERSION_ORIGINAL": 1,
    "API_VERSION_STATUS_RETURNING": 2,
    "API_VERSION_STATUS_RETURNING_UNIFIED": 3,
    "API_VERSION_TYPED_FFI": 4,
}
#: Positional parameters of ``ops.CustomCall*`` after the builder.
CUSTOM_CALL_PARAMS = {
    "CustomCall": ("call_target_name", "operands", "shape", "opaque", "has_side_effect", "schedule", "api_version"),
    "CustomCallWithLayout": (
        "call_target_name", "operands", "shape_with_layout", "operand_shapes_with_layout", "opaque",
        "has_side_effect", "schedule", "api_version",
    ),
    # The older ComputationBuilder's ``c.CustomCall`` / ``c.CustomCallWithLayout`` methods:
    # the op with layouts, the builder as receiver, no api_version (ORIGINAL) nor side effect.
    "method": ("call_target_name", "operands", "shape_with_layout", "operand_shapes_with_layout", "opaque"),
}
#: Kind of a ``c.CustomCall[WithLayout](...)`` builder method call in CUSTOM_CALL_PARAMS.
METHOD = "method"
#: The ComputationBuilder's constant methods -> the NumPy scalar type each one gave its
#: value (``ConstantS32Scalar(v)`` built ``Constant(np.array(v, dtype=np.int32))``);
#: ``Constant(v)`` took the value as it was.
BUILDER_CONSTANTS = {
    "Constant": None, "ConstantF32Scalar": "float32", "ConstantF64Scalar": "float64",
    "ConstantS32Scalar": "int32", "ConstantS64Scalar": "int64", "ConstantPredScalar": "bool_",
}
MLIR_REGISTER = frozenset({"jax.interpreters.mlir.register_lowering", "jax._src.interpreters.mlir.register_lowering"})
REMOVED = (0, 4, 29)
MINIMUM = (0, 5, 0)
SKIP_LAYOUTS = (0, 7, 0)
#: XlaBuilder's custom call with a tuple shape of one element, or of a number known only
#: when the rule runs: ffi_lowering keeping a one-element tuple a tuple (see
#: ``_tuple_lowering_code``).
TUPLE_LOWERING_HELPER = "_ccmigrate_tuple_lowering"
#: ``mlir.aval_to_ir_type`` takes the module context first from this release on.
AVAL_TO_IR_TYPE_CTX = (0, 10, 1)
TARGET_NAME_HELPER = "_ccmigrate_target_name"
TARGET_NAME_HELPER_CODE = f'''
def {TARGET_NAME_HELPER}(name):
    """Custom-call target names may be bytes in XlaBuilder code; MLIR wants str (added by ccmigrate)."""
    return name.decode() if isinstance(name, bytes) else name
'''.strip()
GUIDANCE = (
    "rewrite it as an MLIR lowering rule `def rule(ctx, *operands, **params)` returning "
    "`jax.ffi.ffi_lowering(name, api_version=1, backend_config=opaque, operand_layouts=[minor_to_major...], "
    "result_layouts=[...])(ctx, *operands)` and register it with `mlir.register_lowering(prim, rule, platform=...)`; "
    "shapes come from `ctx.avals_in`/`ctx.avals_out` (`c.get_shape(x)` is gone), constants from `mlir.ir_constant(np.asarray(v))` "
    "with `ctx.replace(avals_in=...)` listing one aval per operand"
)


# XlaBuilder returned the token inside a tuple that the rule unpacked with GetTupleElement;
# an MLIR custom call returns the token itself unless its result type is that tuple, which
# only ops.CustomCall (no layouts) can be given here.
TOKEN_PROBLEM = (
    "its custom call threads an XLA token (Shape.token_shape): an MLIR lowering rule passes and "
    "returns the token itself, without the tuple that GetTupleElement unpacked, so the op is not "
    "the same; write it with jax.ffi.ffi_lowering(..., has_side_effect=True) and check the kernel's "
    "result buffers")


def _calls(function: cst.FunctionDef, name: str) -> bool:
    finder = CallsOf(name)
    walk.read(function.body, finder)
    return bool(finder.found)


@dataclasses.dataclass
class Registration:
    node: cst.CSTNode  # the Call or Assign that registers
    form: str  # "ctx" (register_translation) or "builder"
    prim: cst.BaseExpression
    rule: cst.BaseExpression
    platform: Optional[cst.BaseExpression]
    function: Optional[cst.FunctionDef] = None
    #: Every function the registration covers: one, or each one a registering decorator is applied to.
    functions: list = dataclasses.field(default_factory=list)


@dataclasses.dataclass
class Plan:
    """How one rule function is rewritten; ``problem`` says why it cannot be."""

    function: cst.FunctionDef
    form: str
    problem: Optional[str] = None
    ctx_name: str = "ctx"
    edits: list = dataclasses.field(default_factory=list)  # (node, message, edit)
    unsafe: Optional[str] = None
    consumed: set = dataclasses.field(default_factory=set)
    #: Local names (``xla_client``, ``xops``) through which the rule reached xla_client.
    heads: set = dataclasses.field(default_factory=set)
    #: Constant helpers whose calls the rewrite inlined: helper -> those calls.
    helpers: dict = dataclasses.field(default_factory=dict)
    #: ``return helper(c, *operands)``: the module function the rule hands its builder
    #: to, rewritten as the lowering rule's body, and that call.
    forward: Optional[cst.FunctionDef] = None
    forward_call: Optional[cst.Call] = None
    #: A custom call returns one ``Shape.tuple_shape`` op (several results).
    tuple_result: bool = False
    #: Leading parameters before the builder or context: 1 for a method (``self``), plus
    #: the arguments ``functools.partial`` binds positionally at the registration.
    skip: int = 0
    #: Arguments a forwarding rule passes before the builder (``helper(spec, c, *args)``).
    forward_lead: int = 0
    bound: int = 0
    #: The decision linking this conversion to the registration in another module.
    link: Optional[tuple] = None


class _Collector(cst.CSTVisitor):
    def __init__(self) -> None:
        self.calls: list[cst.Call] = []
        self.assigns: list[cst.Assign] = []
        #: name -> [(function, the function or class it is defined in, None for the module)]
        self.functions: dict[str, list[tuple[cst.FunctionDef, Optional[cst.CSTNode]]]] = {}
        self.enclosing: list[cst.CSTNode] = []
        #: ``<x>.backend_specific_translations`` and the other translation tables, read anywhere
        #: (also as names imported from jax.interpreters.xla).
        self.tables: list[cst.BaseExpression] = []

    def visit_Call(self, node: cst.Call) -> None:
        self.calls.append(node)

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if node.attr.value in TABLES:
            self.tables.append(node)

    def visit_Name(self, node: cst.Name) -> None:
        # ``from jax.interpreters.xla import translations`` then ``translations[p]``: the
        # attribute's own ``.translations`` and the import's name are told apart later.
        if node.value in TABLES:
            self.tables.append(node)

    def visit_Assign(self, node: cst.Assign) -> None:
        self.assigns.append(node)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.functions.setdefault(node.name.value, []).append((node, self.enclosing[-1] if self.enclosing else None))
        self.enclosing.append(node)

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self.enclosing.pop()

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self.enclosing.append(node)

    def leave_ClassDef(self, original_node: cst.ClassDef) -> None:
        self.enclosing.pop()


class XlaTranslationRule(Rule):
    __doc__ = __doc__
    name = "xla-translation-rule"
    summary = "XlaBuilder translation rules with ops.CustomCall[WithLayout] -> MLIR lowering rules with jax.ffi.ffi_lowering."
    triggers = (b"register_translation", b"translations", b"backend_specific_translations", b"translations_with_avals",
                b"lower_fun", b"CustomCall", b"xla_client")

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        # Filled during the engine's one batched walk, analysed when it leaves the module.
        self.collector = _Collector()
        self._row_major_cache: dict[cst.FunctionDef, bool] = {}
        # Set when the module is left (leave_Module), read by the analysis that follows.
        self._alias_heads: set[str] = set()
        self._foreign_ops: set[str] = set()
        self._registered: list[Registration] = []
        self._builder_free = False

    @classmethod
    def index(cls, path: str, source: bytes) -> Optional[IndexEntry]:
        """The rules this module registers that other modules of the project define: those
        convert where they are defined, together with their registration here."""
        if not any(t in source for t in REGISTERS):
            return None
        from codemods.engine import package_of

        registered = registrations_elsewhere(path, package_of(path, source), source)
        if not registered:
            return None
        return IndexEntry(registered, tuple(sorted({r.defined_in for r in registered})))

    def visit_Call(self, node: cst.Call) -> None:
        self.collector.visit_Call(node)

    def visit_Assign(self, node: cst.Assign) -> None:
        self.collector.visit_Assign(node)

    def visit_Attribute(self, node: cst.Attribute) -> None:
        self.collector.visit_Attribute(node)

    def visit_Name(self, node: cst.Name) -> None:
        if node.value in TABLES:
            self.collector.visit_Name(node)
        elif node.value in self._table_aliases:
            # ``from jax.interpreters.xla import translations as table``: ``table`` is one too.
            self.collector.tables.append(node)

    @functools.cached_property
    def _table_aliases(self) -> frozenset:
        return frozenset(b.local for b in self.ctx.names.imports
                         if b.from_module in XLA_MODULES and b.qualified.rsplit(".", 1)[1] in TABLES)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.collector.visit_FunctionDef(node)

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self.collector.leave_FunctionDef(original_node)

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self.collector.visit_ClassDef(node)

    def leave_ClassDef(self, original_node: cst.ClassDef) -> None:
        self.collector.leave_ClassDef(original_node)

    def leave_Module(self, original_node: cst.Module) -> None:
        target = self.ctx.options.target_jax
        if target < REMOVED:
            return
        collector = self.collector
        self._xla_heads = heads_importing(self.ctx, XLA_MODULES)
        self._client_heads = heads_importing(self.ctx, CLIENT_MODULES)
        self._foreign_ops = self._imported_ops_aliases()
        self._client_heads |= self._foreign_ops
        # Names that may alias xla_client (``xops = xla_client.ops``); only these are
        # worth resolving through assignments, which needs the module's scopes.
        self._alias_heads = {
            a.targets[0].target.value for a in collector.assigns
            if len(a.targets) == 1 and isinstance(a.targets[0].target, cst.Name)
            and "xla_client" in self.ctx.module.code_for_node(a.value)
        }
        #: Decorators that register the function they are applied to as a translation rule.
        self._registering: set = set()
        registrations = self._registrations(collector)
        self._registered = registrations
        custom_calls = [c for c in collector.calls if self._client_attr(c.func, "ops") in CUSTOM_CALLS]
        self._removed_helpers: set = set()
        #: ``ops.Tuple(c, operands)`` calls of pass-through rules rewritten whole.
        self._passthrough_calls: set = set()
        if not registrations and not custom_calls:
            self._removed_helpers = self._shared_constant_helpers_to_mlir({})
            self._report_stray(collector, [], {})
            self._drop_aliases(collector, set())
            self._report_kept_table_imports()
            return
        plans: dict[cst.FunctionDef, Plan] = {}
        externals = {id(reg): e for reg in registrations if (e := self._external_registration(reg)) is not None}
        for reg in registrations:
            guard = jax_fallback_guard(self.ctx, reg.node)
            if guard is not None:
                if self._has_mlir_lowering(reg) or self._lowered_outside_guards(reg, registrations):
                    # equinox: ``if hasattr(xla, "lower_fun"): xla.register_translation(...)``
                    # next to ``mlir.register_lowering(p, ...)`` for every release. A
                    # translation rule registered outside the guards is one this run
                    # migrates (or reports): the advice must read the same after it.
                    advice = ("the primitive also has an MLIR lowering here (or a translation rule outside the branch, "
                              "migrated to one), which jax used instead: nothing to migrate; "
                              "drop the branch once jax < 0.4.29 is no longer supported")
                elif isinstance(reg.rule, cst.Call) and self._xla_attr(reg.rule.func) == "lower_fun":
                    advice = ("for jax >= 0.4.29 register `mlir.lower_fun(fun, multiple_results=...)` with "
                              "`mlir.register_lowering(prim, ...)` outside the branch")
                else:
                    advice = f"for jax >= 0.4.29, {GUIDANCE}"
                self.report(reg.node, Safety.MANUAL, f"translation rule registered inside {guard} left as is: that branch serves "
                            f"jax < 0.4.29; {advice}")
                continue
            if self._lower_fun_registration(reg, collector) or self._tuple_registration(reg, collector) \
                    or self._token_registration(reg):
                continue
            if reg.form == "avals":
                self.report(reg.node, Safety.MANUAL, f"translations_with_avals rules were removed with translation rules (jax 0.4.29); {GUIDANCE}")
                continue
            if target < MINIMUM:
                self.report(reg.node, Safety.MANUAL, "translation rules were removed in jax 0.4.29 and the target jax lacks jax.ffi (0.5.0): "
                            "write an MLIR lowering rule with mlir.custom_call and register it with mlir.register_lowering")
                continue
            external = externals.get(id(reg))
            if external is not None:
                self._register_external(reg, *external)
                continue
            functions, unknown = self._decorated_rules(reg, collector)
            if functions is None and unknown is None:
                function, unknown = self._rule_function(reg.rule, reg.node, collector, bound_ok=True)
                functions = [function] if function is not None else None
            if functions is None:
                self.report(reg.node, Safety.MANUAL, f"translation rules were removed in jax 0.4.29; {unknown}, so it cannot be rewritten here: {GUIDANCE}")
                continue
            reg.function, reg.functions = functions[0], functions
            bound = _bound_positionally(self.ctx, reg.rule)
            for function in functions:
                plan = plans.get(function)
                if plan is None:
                    plan = plans[function] = self._plan(function, reg.form, bound)
                elif plan.form != reg.form:
                    plan.problem = "it is registered both as a translation rule and as a builder rule"
                elif plan.bound != bound:
                    plan.problem = "it is registered with different numbers of arguments bound by functools.partial"
        for key, where, _function, _problem in externals.values():
            if key not in self.ctx.claims:
                # Reported above for a reason of its own (a version guard, say): it stays.
                self.ctx.link(key, [where], "its registration there stays a translation rule (its finding says why)")
        self._external_problems: dict = {}
        linked = self._plan_registered_elsewhere(collector, plans, custom_calls)
        self._link_forwards(plans, registrations)
        for function, (key, partners) in linked.items():
            problem = plans[function].problem
            forward = plans[function].forward
            if forward is not None and plans[forward].link is None:
                plans[forward].link = key  # the helper's changes are part of the conversion
            self.ctx.link(key, partners, f"`{function.name.value}` cannot be rewritten automatically ({problem})" if problem else None)
        for reg in registrations:
            if reg.function is None:
                continue
            failing = next((f for f in reg.functions if plans[f].problem), None)
            if failing is not None:
                self.report(reg.node, Safety.MANUAL, f"translation rule `{failing.name.value}` cannot be rewritten automatically ({plans[failing].problem}): {GUIDANCE}")
            else:
                self._report_registration(reg, plans[reg.function])
        consumed_calls: set = set()
        for plan in plans.values():
            if plan.problem:
                continue
            safety = Safety.UNSAFE if plan.unsafe else Safety.SAFE
            for site, message, edit in plan.edits:
                if plan.unsafe and "-> jax.ffi.ffi_lowering" in message:
                    message += f"; review: {plan.unsafe}"
                receives = (
                    "the same operands, layouts and opaque bytes through the same custom-call ABI"
                    if "-> jax.ffi.ffi_lowering" in message else None
                )
                self.report(site, safety, message, edit, kernel_receives=receives, link=self._link_of(plan))
            consumed_calls |= plan.consumed
            for head in plan.heads:
                drop_binding_if_unused(self.ctx, head)
        for call in custom_calls:
            if call in consumed_calls:
                continue
            if jax_fallback_guard(self.ctx, call) is not None:
                continue
            owner = self._owner(call, plans)
            callers = [f.name.value for f in plans if owner is not None and f is not owner and _calls(f, owner.name.value)]
            reason = plans[owner].problem if owner in plans and plans[owner].problem else self._external_problems.get(owner) or (
                # klujax: ``_xla_coo_vec_operation_f64(c, ...)`` called by the registered rules.
                f"`{owner.name.value}`, the function it is in, is a helper of the translation rule(s) "
                f"{', '.join(f'`{c}`' for c in sorted(set(callers)))}, which are not rewritten automatically: migrate "
                "them together" if owner is not None and callers
                else self._registered_as_lowering(call, collector)
                or (f"`{owner.name.value}`, the function it is in, is not registered as a translation rule in this module: "
                    "migrate it with the module that registers it") if owner is not None
                else "it is not in a translation rule registered in this module")
            self.report(call, Safety.MANUAL, f"xla_client.ops custom call (removed in jax 0.6.0) not rewritten ({reason}): {GUIDANCE}")
        self._removed_helpers = self._drop_constant_helpers(plans)
        self._removed_helpers |= self._drop_uncalled_constant_helpers()
        self._removed_helpers |= self._shared_constant_helpers_to_mlir(plans)
        self._report_stray(collector, custom_calls, plans)
        self._drop_aliases(collector, consumed_calls | self._passthrough_calls)
        self._report_kept_table_imports()

    def _report_kept_table_imports(self) -> None:
        """``from jax.interpreters.xla import translations``: the import fails on the target
        jax. It goes with the uses the rule rewrites; one a manual site still uses is reported."""
        tables = [b for b in self.ctx.names.imports if b.from_module in XLA_MODULES and b.qualified.rsplit(".", 1)[1] in TABLES]
        if not tables:
            return
        manual = [f.node for f in self.ctx.findings if f.change.rule == self.name and f.change.safety is Safety.MANUAL]
        for binding in tables:
            if compatibility_guard(self.ctx, binding.statement) or jax_fallback_guard(self.ctx, binding.statement):
                continue
            used = [node for node in manual if binding.local in walk.names_in(node)]
            scope = self.ctx.scopes.get(binding.statement)
            if not used and scope is not None and not any(a.references for a in scope.assignments[binding.local]):
                self.report(
                    binding.statement,
                    Safety.MANUAL,
                    f"`{binding.local}` is imported from {binding.from_module}, which lost it with translation rules "
                    "(jax 0.4.29), and not used here: the import fails; delete it (and its imports from this module "
                    "elsewhere, if it is re-exported)",
                )
            elif used:
                self.report(
                    binding.statement,
                    Safety.MANUAL,
                    f"`{binding.local}` is imported from {binding.from_module}, which lost it with translation rules "
                    f"(jax 0.4.29): the import fails; it stays for the {len(used)} manual site(s) using it here: "
                    "delete it once they are migrated",
                )

    def _drop_constant_helpers(self, plans: dict) -> set:
        """Remove a private constant helper once every call of it was inlined: left behind,
        it would keep the module importing xla_client, which fails at import time."""
        inlined: dict = {}
        unsafe: set = set()
        for plan in plans.values():
            if plan.problem:
                continue
            for helper, calls in plan.helpers.items():
                inlined.setdefault(helper, set()).update(calls)
                if plan.unsafe:
                    unsafe.add(helper)
        removed = set()
        unpackers = {helper for plan in plans.values() if not plan.problem for helper in plan.helpers
                     if (call := _sole_return_call(helper)) is not None and get_full_name_for_node(call.func) == "getattr"}
        exported = re.findall(r"__all__", self.ctx.module.code)
        for helper, calls in inlined.items():
            name = helper.name.value
            if not name.startswith("_") or (exported and re.search(rf"[\'\"]{re.escape(name)}[\'\"]", self.ctx.module.code)):
                continue
            if self._is_method(helper):
                # ``self._shape_with_layout(...)``: read as an attribute, which scopes do not
                # track; the name must occur nowhere else, here or in the package.
                uses = len(re.findall(rf"\b{re.escape(name)}\b", self.ctx.module.code))
                # (Outside a package, the scripts beside it: a subclass there may call it.)
                redefined = [f for f, where in self.collector.functions.get(name, []) if f is not helper]
                if uses == len(calls) + 1 and not redefined and not self._method_used_elsewhere(name):
                    removed.add(helper)
                    self.report(helper, Safety.UNSAFE if helper in unsafe else Safety.SAFE, f"private method `{name}` built row-major XLA shapes; every call "
                                "of it was dropped with the layouts they gave (ffi_lowering's defaults): removed",
                                lambda _n: cst.RemoveFromParent())
                continue
            scope = self.ctx.scopes.get(helper)
            if scope is None:
                continue
            references = [access.node for assignment in scope.assignments[name] for access in assignment.references]
            if len(scope.assignments[name]) != 1 or not references:
                continue
            if all(any(self._inside_any(ref, {call}) or ref is call.func for call in calls) for ref in references):
                removed.add(helper)
                what = ("unwrapped the XlaBuilder; every call of it was dropped with the builder" if helper in unpackers
                        else "built row-major XLA shapes; every call of it was dropped with the layouts they gave "
                        "(ffi_lowering's defaults)" if self._row_major_cache.get(helper)
                        else "built XlaBuilder constants; every call of it was inlined")
                self.report(helper, Safety.UNSAFE if helper in unsafe else Safety.SAFE,
                            f"private helper `{name}` {what}: removed", lambda _n: cst.RemoveFromParent())
        return removed

    def _drop_uncalled_constant_helpers(self) -> set:
        """Remove a private module-level ``_helper(c, x): return ops.Constant(c, ...)`` (also
        one in a module-level ``if``/``try`` block) that nothing calls (copied along with old
        translation-rule code): dead, it would still keep the module importing xla_client,
        which fails at import time."""
        removed = set()
        code = self.ctx.module.code
        for stmt in _module_level_functions(self.ctx.module.body):
            if stmt.decorators or not stmt.name.value.startswith("_") \
                    or stmt.name.value.startswith("__"):
                continue
            name = stmt.name.value
            params = stmt.params
            made = _sole_return_call(stmt)
            if made is None or len(params.params) != 2 or params.posonly_params or params.kwonly_params \
                    or not isinstance(params.star_arg, cst.MaybeSentinel) or params.star_kwarg is not None:
                continue
            if self._client_attr(made.func, "ops") not in CONSTANTS or not made.args \
                    or not (isinstance(made.args[0].value, cst.Name) and made.args[0].value.value == params.params[0].name.value):
                continue
            if re.search(rf"[\'\"]{re.escape(name)}[\'\"]", code):
                continue  # named in __all__ or looked up by name
            scope = self.ctx.scopes.get(stmt)
            if scope is None:
                continue
            assignments = scope.assignments[name]
            if len(assignments) != 1 or any(a.references for a in assignments):
                continue
            if self.ctx.package is not None and package_files_mentioning(self.ctx.path, self.ctx.package, name):
                continue  # imported by another module (mpi4jax's utils): converted below instead
            removed.add(stmt)
            self.report(stmt, Safety.SAFE, f"private helper `{name}` built XlaBuilder constants and nothing calls it: removed "
                        "(it only kept the module importing xla_client)", lambda _n: cst.RemoveFromParent())
        return removed

    def _shared_constant_helpers_to_mlir(self, plans: dict) -> set:
        """A module-level ``helper(c, x): return ops.Constant(c, <value>)`` that this module
        never calls (mpi4jax's ``utils.xla_constant_intc`` or ``_constant_s32_scalar``,
        imported by the modules of its translation rules; a private one another module
        imports is no less shared, and one nobody calls is harmless converted) returns
        ``mlir.ir_constant(np.asarray(<value>))`` instead.
        Its XlaBuilder body could not run on the target jax (xla_client.ops is gone), and
        the rules that call it are converted with the value inlined; kept as it was, it
        would only keep this module importing xla_client, which fails at import time."""
        converted = set()
        if self.ctx.options.target_jax < (0, 6, 0):
            return converted
        # Calls this run inlines (rules of this module) do not count as calls of the helper.
        inlined = {call.func for plan in plans.values() if not plan.problem for calls in plan.helpers.values() for call in calls}
        code = self.ctx.module.code
        for stmt in _module_level_functions(self.ctx.module.body):
            if stmt.decorators or stmt.name.value.startswith("__") \
                    or stmt in self._removed_helpers:
                continue
            name = stmt.name.value
            params = stmt.params
            made = _sole_return_call(stmt)
            if made is None or len(params.params) != 2 or params.posonly_params or params.kwonly_params \
                    or not isinstance(params.star_arg, cst.MaybeSentinel) or params.star_kwarg is not None \
                    or any(p.default for p in params.params):
                continue
            if self._client_attr(made.func, "ops") not in CONSTANTS or len(made.args) != 2 \
                    or any(a.keyword or a.star for a in made.args) \
                    or not (isinstance(made.args[0].value, cst.Name) and made.args[0].value.value == params.params[0].name.value):
                continue
            if params.params[0].name.value in _read_names(made.args[1].value) or re.search(rf"[\'\"]{re.escape(name)}[\'\"]", code):
                continue
            scope = self.ctx.scopes.get(stmt)
            if scope is None or len(scope.assignments[name]) != 1 \
                    or any(ref.node not in inlined for a in scope.assignments[name] for ref in a.references):
                continue
            converted.add(stmt)
            self.report(made, Safety.SAFE,
                        f"`{name}(c, x)` returned an XlaBuilder constant, which cannot be built on this jax "
                        "(xla_client.ops is gone): it returns mlir.ir_constant of the same value, what the "
                        "translation rules calling it now inline", self._constant_edit())
            head = head_name(made.func)
            if head:
                drop_binding_if_unused(self.ctx, head)
        return converted

    def _report_stray(self, collector: _Collector, custom_calls: list, plans: dict) -> None:
        """``xla_client.Shape``/``ops`` calls outside any rule this rule rewrote or reported."""
        # A custom call's finding spans its arguments; builder calls elsewhere in the same
        # function (a constant assigned first) need their own, or their lines go unreported.
        reported_calls = set(custom_calls) | self._passthrough_calls
        rewritten = {f for f, plan in plans.items() if not plan.problem}
        # A module with no XlaBuilder program (no rule, no custom call, no op) that builds
        # Shapes of a jaxlib that still has them (jax's own callback.py) works as it is.
        builder_free = not plans and not custom_calls and not any(self._client_attr(c.func, "ops") for c in collector.calls)
        self._builder_free = builder_free
        for call in collector.calls:
            group = "Shape" if self._client_attr(call.func, "Shape") else "ops" if self._client_attr(call.func, "ops") else None
            if group is None or self._client_attr(call.func, "ops") in CUSTOM_CALLS:
                continue
            owner = self._owner(call, plans)
            if owner in rewritten or owner in self._removed_helpers or call in reported_calls or self._inside_any(call, reported_calls):
                continue
            if jax_fallback_guard(self.ctx, call) is not None:
                continue
            qualified = self.ctx.qualified_name(call.func) or qualified_through_alias(self.ctx, call.func) or ""
            if builder_free and any(qualified == f"{m}.Shape.{f}" for m in STILL_IMPORTABLE for f in SHAPE_FACTORIES):
                continue  # also through ``x_shape = xla_client.Shape.array_shape``
            what = get_full_name_for_node(call.func) or group
            if group == "Shape":
                instead = "use jax.ShapeDtypeStruct / layouts as minor_to_major tuples, or an MLIR lowering rule"
            elif what.rsplit(".", 1)[-1] in ("Constant", "ConstantLiteral"):
                instead = "in an MLIR lowering rule, use `mlir.ir_constant(np.asarray(value))`"
            else:
                instead = ("in an MLIR lowering rule, build the matching StableHLO op (`jax.extend.mlir.dialects.stablehlo`, "
                           "e.g. hlo.reshape / hlo.transpose) or lower a jax.numpy/lax function with `mlir.lower_fun`")
            self.report(call, Safety.MANUAL, f"`{what}` builds XLA {'shapes' if group == 'Shape' else 'ops'} for the XlaBuilder, "
                        f"which jax removed (xla_client.ops in 0.6.0, jax.lib.xla_client in 0.9.0): {instead}")
            reported_calls.add(call)
        # ``xla.lower_fun`` where no registration this rule handled reaches it (a rule made
        # by a factory, a helper): the call itself fails on the installed jax.
        covered = {id(f.node) for f in self.ctx.findings}
        for call in collector.calls:
            if self._xla_attr(call.func) != "lower_fun" or id(call) in covered:
                continue
            if any(id(a) in covered for a in ancestors(self.ctx, call)) or jax_fallback_guard(self.ctx, call) is not None:
                continue
            self.report(call, Safety.MANUAL, "xla.lower_fun was removed with translation rules (gone from jax 0.4.4) and this "
                        "call is not in a registration that can be rewritten here: register `mlir.lower_fun(f, "
                        "multiple_results=...)` with `mlir.register_lowering(prim, ...)` instead")
            covered.add(id(call))
        # The translation tables read other than in a registration handled above (kept in
        # a name, measured, passed on): the attribute itself fails on the installed jax.
        for table in collector.tables:
            holder = self.ctx.parents.get(table)
            if isinstance(table, cst.Name) and (
                (isinstance(holder, cst.Attribute) and holder.attr is table)
                or any(isinstance(a, (cst.Import, cst.ImportFrom)) for a in ancestors(self.ctx, table))
            ):
                continue
            name = self._xla_attr(table)
            if name not in TABLES or id(table) in covered or any(id(a) in covered for a in ancestors(self.ctx, table)):
                continue
            if jax_fallback_guard(self.ctx, table) is not None or compatibility_guard(self.ctx, table):
                continue
            self.report(table, Safety.MANUAL, f"xla.{name} was removed with translation rules in jax 0.4.29, and this use "
                        "is not a registration that can be rewritten here: register an MLIR lowering with "
                        "`mlir.register_lowering(prim, rule, platform=...)` instead")
            covered.add(id(table))

    def _inside_any(self, node: cst.CSTNode, containers: set) -> bool:
        return any(ancestor in containers for ancestor in ancestors(self.ctx, node))

    # -- discovery -------------------------------------------------------------
    def _xla_attr(self, node: cst.BaseExpression) -> Optional[str]:
        if head_name(node) not in self._xla_heads:
            return None
        qual = self.ctx.qualified_name(node)
        if qual is None:
            return None
        module, _, attr = qual.rpartition(".")
        return attr if module in XLA_MODULES else None

    def _client_attr(self, node: cst.BaseExpression, group: str) -> Optional[str]:
        """``CustomCall`` for ``xla_client.ops.CustomCall`` (also through ``xops = xla_client.ops``,
        or ``x_shape = xla_client.Shape.array_shape`` called as ``x_shape(...)``)."""
        aliases = self._alias_heads
        if isinstance(node, cst.Name) and node.value in aliases:
            qual = qualified_through_alias(self.ctx, node)
            for module in CLIENT_MODULES:
                prefix = f"{module}.{group}."
                if qual and qual.startswith(prefix) and "." not in qual[len(prefix):]:
                    return qual[len(prefix):]
            return None
        if not isinstance(node, cst.Attribute):
            return None
        head = head_name(node)
        if head not in self._client_heads and head not in aliases:
            return None
        qual = self.ctx.qualified_name(node)
        if head in self._foreign_ops:
            # ``from ..utils import _ops`` where utils binds ``_ops = xla_client.ops``.
            qual = f"jax.lib.xla_client.ops{(get_full_name_for_node(node) or '')[len(head):]}"
        if qual is None and head in aliases:
            qual = qualified_through_alias(self.ctx, node)
        if qual is None:
            return None
        for module in CLIENT_MODULES:
            prefix = f"{module}.{group}."
            if qual.startswith(prefix) and "." not in qual[len(prefix):]:
                return qual[len(prefix):]
        return None

    def _registrations(self, collector: _Collector) -> list[Registration]:
        found = []
        for call in collector.calls:
            if self._xla_attr(call.func) != "register_translation":
                continue
            args = positional(call)
            platform = keyword_value(call, "platform")
            # mlir.register_lowering takes platform= but not initial_style= and the like.
            others = [a for a in call.args if a.keyword is not None and a.keyword.value != "platform"]
            if len(args) != 2 or others or any(a.star for a in call.args):
                self.report(call, Safety.MANUAL, f"xla.register_translation with unusual arguments: {GUIDANCE}")
                continue
            found.append(Registration(call, "ctx", args[0].value, args[1].value, platform))
        for assign in collector.assigns:
            if len(assign.targets) != 1 or not isinstance(assign.targets[0].target, cst.Subscript):
                continue
            sub = assign.targets[0].target
            key = _subscript_key(sub)
            if key is None:
                continue
            if self._xla_attr(sub.value) == "translations":
                found.append(Registration(assign, "builder", key, assign.value, None))
            elif self._xla_attr(sub.value) == "translations_with_avals":
                found.append(Registration(assign, "avals", key, assign.value, None))
            elif isinstance(sub.value, cst.Subscript) and self._xla_attr(sub.value.value) == "backend_specific_translations":
                platform = _subscript_key(sub.value)
                if platform is not None:
                    found.append(Registration(assign, "builder", key, assign.value, platform))
        return found

    def _rule_function(self, rule: cst.BaseExpression, site: cst.CSTNode, collector: _Collector, bound_ok: bool = False):
        """The function registered at ``site``, or ``(None, why it is not known)``; with
        ``bound_ok``, ``partial(f, a, ...)`` gives ``f`` (the plan skips the bound parameters)."""
        code = _snippet(self.ctx, rule)
        if isinstance(rule, cst.Call):
            qual = self.ctx.qualified_name(rule.func)
            if qual != "functools.partial" or not rule.args or rule.args[0].keyword is not None or any(a.star for a in rule.args):
                return None, f"the registered rule `{code}` is built by a call, not defined with `def`"
            if not bound_ok and any(a.keyword is None for a in rule.args[1:]):
                # positional partial arguments shift the operands
                return None, f"the registered rule `{code}` binds positional arguments with functools.partial"
            rule = rule.args[0].value
        imported = self._imported_rule(rule, _snippet(self.ctx, rule), code)
        if imported is not None:
            return None, imported
        if isinstance(rule, cst.Attribute):
            return self._bound_method(rule, site, collector)
        if not isinstance(rule, cst.Name):
            return None, f"the registered rule `{code}` is not a function name"
        defs = collector.functions.get(rule.value, [])
        # The binding the registration sees: a function defined beside it (a rule nested
        # in a factory with the registration), else in an enclosing function or the module.
        for scope in self._scopes_around(site) + [None]:
            here = [function for function, where in defs if where is scope]
            if len(here) == 1:
                return here[0], None
            if here:
                return None, f"`{rule.value}` is defined more than once where it is registered"
        return None, f"`{rule.value}` is not defined with `def` in this module (imported or assigned)"

    def _imported_rule(self, rule: cst.BaseExpression, name: str, registered: str) -> Optional[str]:
        """Why a rule imported from another module cannot be converted here (that module
        is not in the run, or not in the project), and what to do in each of the two files."""
        if not isinstance(rule, (cst.Name, cst.Attribute)):
            return None
        qual = self.ctx.qualified_name(rule)
        if qual is None or (not qual.startswith(".") and qual.split(".")[0] in ("jax", "jaxlib")):
            return None
        module, _, function = qual.rpartition(".")
        return (f"the registered rule `{name}` is `{function}` of module `{module}`, another file, not found among "
                f"the files migrated with this one: run ccmigrate on both together, or make `{function}` an MLIR lowering rule in `{module}` (steps below), then "
                f"register `{registered}` here with `mlir.register_lowering(<primitive>, ..., platform=...)`")

    def _decorated_rules(self, reg: Registration, collector: _Collector):
        """``(functions, None)`` when ``reg`` sits in a local registering decorator,

            def register_cpu(prim):
                def decorator(fun):
                    xla.backend_specific_translations["cpu"][prim] = partial(fun, name)
                    return fun
                return decorator

        applied as ``@register_cpu(p)``: the functions it decorates are the rules (it
        returns each one unchanged). ``(None, why)`` when it looks like one but is not
        sure; ``(None, None)`` when the registered rule is no decorator's parameter."""
        rule = _unpartial(self.ctx, reg.rule)
        scopes = self._scopes_around(reg.node)
        if not isinstance(rule, cst.Name) or len(scopes) < 2 or not all(isinstance(s, cst.FunctionDef) for s in scopes[:2]):
            return None, None
        decorator, factory = scopes[0], scopes[1]
        params = decorator.params
        if [p.name.value for p in params.params] != [rule.value] or params.posonly_params or params.kwonly_params:
            return None, None
        why = f"the registering decorator `{factory.name.value}`"
        if (len(scopes) != 2 or factory.decorators or decorator.decorators
                or not _ends_with_return(decorator, rule.value) or not _ends_with_return(factory, decorator.name.value)):
            return None, f"{why} is not a module function returning a decorator that returns `{rule.value}` unchanged"
        if rule.value in _assigned_names(decorator.body) or decorator.name.value in _assigned_names(factory.body):
            return None, f"{why} rebinds `{rule.value}`"
        scope = self.ctx.scopes.get(factory)
        assignments = scope.assignments[factory.name.value] if scope is not None else ()
        if len(assignments) != 1:
            return None, f"{why} is bound more than once"
        functions = []
        for access in next(iter(assignments)).references:
            call = self.ctx.parents.get(access.node)
            applied = self.ctx.parents.get(call)
            function = self.ctx.parents.get(applied)
            if not (isinstance(call, cst.Call) and call.func is access.node and isinstance(applied, cst.Decorator)
                    and isinstance(function, cst.FunctionDef)):
                return None, f"{why} is also used other than as `@{factory.name.value}(...)` on a function"
            self._registering.add(applied)
            if function not in functions:
                functions.append(function)
        if not functions:
            return None, f"{why} is applied to no function in this module"
        return functions, None

    def _bound_method(self, rule: cst.Attribute, site: cst.CSTNode, collector: _Collector):
        """``self.rule`` registered inside a method of the class that defines ``rule``."""
        scopes = self._scopes_around(site)
        method = scopes[0] if scopes and isinstance(scopes[0], cst.FunctionDef) else None
        klass = self.ctx.parents.get(self.ctx.parents.get(method)) if method is not None else None
        params = list(method.params.posonly_params) + list(method.params.params) if method is not None else []
        if not (isinstance(klass, cst.ClassDef) and isinstance(rule.value, cst.Name) and params
                and params[0].name.value == rule.value.value and not method.decorators):
            code = _snippet(self.ctx, rule)
            return None, f"the registered rule `{code}` is an attribute, not a function or a method of the class registering it"
        name = rule.attr.value
        defs = [function for function, where in collector.functions.get(name, []) if where is klass]
        if len(defs) != 1:
            how = "defined more than once" if defs else "not defined"
            return None, f"`{name}` is {how} in class `{klass.name.value}` (it may come from a base class)"
        return defs[0], None

    def _forwarding_decorator(self, decorator: cst.Decorator) -> bool:
        """Whether ``@decorator`` is a function of this project (this module, or imported
        from another of its modules) that returns the rule itself or a wrapper passing
        ``*args, **kwargs`` through to it and returning its result: the lowering rule is
        then called with the same arguments, and its results come back unchanged."""
        name = decorator.decorator
        check = _forwards_arguments
        if isinstance(name, cst.Call) and isinstance(name.func, cst.Name) and not any(a.star for a in name.args):
            # ``@trace("label")``: a factory returning a forwarding decorator (jax's primitives
            # tutorial defines one; projects keep it in a utility module and import it).
            name, check = name.func, _forwarding_factory
        if not isinstance(name, cst.Name):
            return False
        here = [f for f, where in self.collector.functions.get(name.value, []) if where is None]
        if here:
            return len(here) == 1 and check(ast.parse(self.ctx.module.code_for_node(here[0]).strip()).body[0])
        binding = next((b for b in self.ctx.names.imports if b.local == name.value and b.from_module is not None), None)
        if binding is None or binding.qualified.split(".")[0] in ("jax", "jaxlib", "functools"):
            return False
        module, _, function = binding.qualified.rpartition(".")
        candidate = project_module_file(self.ctx.path, self.ctx.package, module, nearby=True)
        if candidate is None or os.path.abspath(candidate) == os.path.abspath(self.ctx.path):
            return False
        return _project_function_forwards(candidate, function, check)

    def _is_method(self, function: cst.FunctionDef) -> bool:
        return any(f is function and isinstance(where, cst.ClassDef) for f, where in self.collector.functions.get(function.name.value, []))

    def _scopes_around(self, node: cst.CSTNode) -> list[cst.CSTNode]:
        """The functions enclosing ``node``, innermost first (a class body ends the search:
        its names are not visible from the methods)."""
        found = []
        current = self.ctx.parents.get(node)
        while current is not None:
            if isinstance(current, cst.FunctionDef):
                found.append(current)
            elif isinstance(current, cst.ClassDef):
                return found + [current] if not found else found
            current = self.ctx.parents.get(current)
        return found

    def _registered_as_lowering(self, call: cst.Call, collector: _Collector) -> Optional[str]:
        """Why the custom call never lowered, when the function around it takes an XlaBuilder
        but is registered with ``mlir.register_lowering`` (half a migration: envpool forks'
        ``mlir.register_lowering(prim, translation)``), which hands it the lowering context
        and MLIR values."""
        function = next((p for p in reversed(self.ctx.ancestors_of(call)) if isinstance(p, cst.FunctionDef)), None)
        if function is None:
            return None
        for reg in collector.calls:
            if self.ctx.qualified_name(reg.func) not in MLIR_REGISTER or len(reg.args) < 2:
                continue
            rule = _unpartial(self.ctx, reg.args[1].value)
            if isinstance(rule, cst.Name) and rule.value == function.name.value:
                line = self.ctx.locate([reg])[reg].start.line
                return (f"`{function.name.value}`, the function it is in, builds XLA ops on an XlaBuilder but is "
                        f"registered with mlir.register_lowering (line {line}), which hands it the lowering context "
                        "and MLIR values: that registration never lowered")
        return None

    def _owner(self, node: cst.CSTNode, plans: dict) -> Optional[cst.FunctionDef]:
        """The registered rule around ``node`` (a rule may sit inside a factory function),
        else the outermost function."""
        current = self.ctx.parents.get(node)
        owner = None
        while current is not None:
            if isinstance(current, cst.FunctionDef):
                if current in plans:
                    return current
                owner = current
            current = self.ctx.parents.get(current)
        return owner

    # -- rules registered in one module, defined in another ----------------------
    def _external_registration(self, reg: Registration) -> Optional[tuple]:
        """``(key, defining file, function, problem)`` when ``reg`` registers a function
        that another module of the project defines and the run has a project index."""
        project = self.ctx.options.project
        rule = reg.rule
        if project is None:
            return None
        bound = 0
        if isinstance(rule, cst.Call):
            if (self.ctx.qualified_name(rule.func) != "functools.partial" or not rule.args
                    or rule.args[0].keyword is not None or any(a.star for a in rule.args)):
                return None
            bound, rule = _bound_positionally(self.ctx, rule), rule.args[0].value
        if not isinstance(rule, (cst.Name, cst.Attribute)):
            return None
        qual = self.ctx.qualified_name(rule)
        if qual is None or (not qual.startswith(".") and qual.split(".")[0] in ("jax", "jaxlib")):
            return None
        found = defining_file(self.ctx.path, self.ctx.package, qual)
        if found is None:
            return None
        where, function = found
        key = (self.name, where, function, reg.form, bound)
        problem = None
        if key in project.vetoed:
            problem = self._veto_text(*project.vetoed[key])
        elif where not in project.files:
            problem = "that file is not among the files this run migrates"
        else:
            site = Registered(where, function, reg.form, bound)
            indexed = [r for r in project.of(self.name).get(os.path.abspath(self.ctx.path), ()) if r.same_site(site)]
            if not indexed:
                problem = "the project index did not recognise this registration"
            elif any(r.used_otherwise for r in indexed):
                problem = f"this module also uses `{function}` other than to register it, a use the converted rule would break"
        return key, where, function, problem

    def _register_external(self, reg: Registration, key: tuple, where: str, function: str, problem: Optional[str]) -> None:
        """The registration side of a rule defined in another module: registered as a
        lowering rule when that module converts the function (the engine undoes both
        otherwise)."""
        self.ctx.link(key, [where], problem)
        if problem is None:
            self._report_registration(reg, Plan(reg.rule, reg.form), link=key)
            return
        self.report(reg.node, Safety.MANUAL, f"translation rules were removed in jax 0.4.29; the registered rule `{function}` is "
                    f"defined in `{where_text(self.ctx.path, where)}`, which must convert it with this registration, but "
                    f"{problem}, so neither is converted: {GUIDANCE}")

    def _plan_registered_elsewhere(self, collector: _Collector, plans: dict, custom_calls: list) -> dict:
        """Plan each function of this module that other modules register (the project
        index says which, with how): function -> (key, registering files). A function
        that cannot be planned gets its reason in ``_external_problems``."""
        project = self.ctx.options.project
        if project is None or self.ctx.options.target_jax < MINIMUM:
            return {}
        here = os.path.abspath(self.ctx.path)
        wanted: dict = {}
        for other, facts in project.of(self.name).items():
            for r in facts:
                if r.defined_in == here:
                    wanted.setdefault(r.function, {}).setdefault((r.form, r.bound), set()).add(other)
        linked: dict = {}
        for name, variants in sorted(wanted.items()):
            defs = [f for f, where in collector.functions.get(name, []) if where is None]
            function = defs[0] if len(defs) == 1 else None
            calls = [c for c in custom_calls if function is not None and self._inside_any(c, {function})]
            handed = _sole_return_call(function) if function is not None and not calls else None
            if handed is not None and isinstance(handed.func, cst.Name):
                # ``return _helper(c, *operands)``: the helper holds the custom call.
                helpers = [f for f, where in collector.functions.get(handed.func.value, []) if where is None]
                calls = [c for c in custom_calls if helpers and self._inside_any(c, set(helpers))]
            for (form, bound), partners in sorted(variants.items()):
                key = (self.name, here, name, form, bound)
                registered_in = ", ".join(f"`{where_text(self.ctx.path, p)}`" for p in sorted(partners))
                problem = None
                if key in project.vetoed:
                    problem = self._veto_text(*project.vetoed[key])
                elif function is None:
                    problem = f"`{name}` is not defined once with `def` at the top of `{where_text(self.ctx.path, here)}`"
                elif not calls:
                    problem = f"`{name}` builds no xla_client.ops custom call"
                elif len(variants) > 1:
                    problem = _variants_problem(name, variants)
                elif function in plans:
                    problem = f"`{name}` is registered in its own module too"
                elif any(r.used_otherwise for other in partners for r in project.of(self.name)[other]
                         if r.defined_in == here and r.function == name):
                    problem = f"`{name}` is also used other than as a registered rule in {registered_in}"
                elif self._used_here(function):
                    problem = f"`{name}` is also used in its own module, where it would still be handed an XlaBuilder"
                if problem is None:
                    plan = plans[function] = self._plan(function, form, bound)
                    plan.link = key
                    linked[function] = (key, partners)
                    continue
                self.ctx.link(key, partners, problem)
                if calls:
                    self._external_problems[function] = f"registered as a translation rule in {registered_in}, but {problem}"
        return linked

    def _used_here(self, function: cst.FunctionDef) -> bool:
        scope = self.ctx.scopes.get(function)
        if scope is None:
            return True
        assignments = scope.assignments[function.name.value]
        return len(assignments) != 1 or any(a.references for a in assignments)

    def _veto_text(self, where: str, why: str) -> str:
        if where == os.path.abspath(self.ctx.path):
            return why
        return f"`{where_text(self.ctx.path, where)}` cannot take its part ({why})"

    # -- registrations ---------------------------------------------------------
    def _link_of(self, plan: Plan):
        """One conversion's edits and registrations land together or not at all (see
        ``engine.rewrite``): the key shared with other modules, else one for this file."""
        if plan.link is not None or not isinstance(plan.function, cst.FunctionDef):
            return plan.link
        return ("xla-translation-rule", self.ctx.path, plan.function.name.value, id(plan.function))

    def _report_registration(self, reg: Registration, plan: Plan, link: Optional[tuple] = None) -> None:
        if link is None:
            link = self._link_of(plan)
        safety = Safety.UNSAFE if plan.unsafe else Safety.SAFE
        register = self._mlir("register_lowering")
        if isinstance(reg.node, cst.Call):
            edit = lambda updated: updated.with_changes(func=cst.parse_expression(register))  # noqa: E731
        else:
            edit = lambda updated: cst.Expr(self._register_lowering(reg, reg.rule, register))  # noqa: E731
        self._drop_xla_head(reg)
        if self._drop_if_lowered(reg, safety, "translation rule (removed in jax 0.4.29): registration dropped, the rule rewritten in place", link):
            return
        self.report(reg.node, safety,
                    "translation rules were removed in jax 0.4.29: registered as an MLIR lowering rule with mlir.register_lowering", edit, link=link)

    def _register_lowering(self, reg: Registration, rule: cst.BaseExpression, register: str) -> cst.Call:
        """``register(prim, rule[, platform=...])`` for ``reg``; ``register`` spells
        ``mlir.register_lowering`` (spelled when the finding is made: imports are added then)."""
        args = [cst.Arg(reg.prim, comma=SPACED_COMMA), cst.Arg(rule)]
        if reg.platform is not None:
            args[-1] = args[-1].with_changes(comma=SPACED_COMMA)
            args.append(cst.Arg(reg.platform, keyword=cst.Name("platform"), equal=TIGHT_EQUAL))
        return cst.Call(cst.parse_expression(register), args)

    def _drop_xla_head(self, reg: Registration) -> None:
        """The ``xla`` import the registration went through goes once nothing else uses it."""
        head = head_name(reg.node.func if isinstance(reg.node, cst.Call) else reg.node.targets[0].target)
        if head:
            drop_binding_if_unused(self.ctx, head)

    def _drop_if_lowered(self, reg: Registration, safety: Safety, what: str, link: Optional[tuple] = None) -> bool:
        """Remove the registration's statement when the module also gives the primitive an
        MLIR lowering for its platform (jax always preferred that one); ``what`` ends the
        message: what was preferred over, and what happens to it."""
        if not self._has_mlir_lowering(reg):
            return False
        statement = self.ctx.parents.get(reg.node)
        if isinstance(statement, cst.Expr):
            statement = self.ctx.parents.get(statement)
        if not (isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1):
            return False
        self.report(statement, safety, f"the primitive already has an MLIR lowering for this platform, which jax preferred over the {what}",
                    lambda _n: cst.RemoveFromParent(), link=link)
        return True

    def _lowered_outside_guards(self, reg: Registration, registrations: list) -> bool:
        """Another registration of ``reg``'s primitive, for its platform, outside every
        compatibility guard (an ``else`` for newer jax, say)."""
        return any(other is not reg and jax_fallback_guard(self.ctx, other.node) is None
                   and self._covers(reg, other.node, other.prim, other.platform) for other in registrations)

    def _has_mlir_lowering(self, reg: Registration) -> bool:
        """Whether this module also registers an MLIR lowering covering ``reg``."""
        for call in self.collector.calls:
            if self.ctx.qualified_name(call.func) not in MLIR_REGISTER:
                continue
            args = [a for a in call.args if a.keyword is None]
            if args and self._covers(reg, call, args[0].value, keyword_value(call, "platform")):
                return True
        return False

    def _covers(self, reg: Registration, site: cst.CSTNode, prim: cst.BaseExpression,
                platform: Optional[cst.BaseExpression]) -> bool:
        """A registration at ``site`` of ``prim`` for ``platform`` (None: every platform)
        serves ``reg``'s primitive on ``reg``'s platform."""
        code = self.ctx.module.code_for_node
        if code(prim) != code(reg.prim):
            return False
        # The same spelling names the same primitive only through the same binding: two
        # helpers each registering their own parameter `primitive` are alternatives.
        if self._binder(reg.node, reg.prim) is not self._binder(site, prim):
            return False
        return platform is None or (reg.platform is not None
                                    and _platform_text(code(platform)) == _platform_text(code(reg.platform)))

    def _binder(self, site: cst.CSTNode, prim: cst.BaseExpression) -> Optional[cst.FunctionDef]:
        """The innermost function around ``site`` that binds the name ``prim`` starts with
        (a parameter or a local assignment), the class for `self.x` in its methods; None for a
        module-level name."""
        head = prim
        while isinstance(head, (cst.Attribute, cst.Subscript)):
            head = head.value
        if not isinstance(head, cst.Name):
            return None
        for function in self._scopes_around(site):
            if not isinstance(function, cst.FunctionDef):
                continue
            params = function.params
            names = {p.name.value for p in (*params.posonly_params, *params.params, *params.kwonly_params)}
            for star in (params.star_arg, params.star_kwarg):
                if isinstance(star, cst.Param):
                    names.add(star.name.value)
            if head.value in names or head.value in _assigned_names(function.body):
                positional = [*params.posonly_params, *params.params]
                klass = self._enclosing_class(function)
                if klass is not None and prim is not head and positional and positional[0].name.value == head.value:
                    return klass  # `self.primitive` in two methods: one object's attribute
                return function
        return None

    def _enclosing_class(self, function: cst.FunctionDef) -> Optional[cst.ClassDef]:
        body = self.ctx.parents.get(function)
        klass = self.ctx.parents.get(body)
        return klass if isinstance(klass, cst.ClassDef) and not function.decorators else None

    # -- xla.lower_fun -----------------------------------------------------------
    def _lower_fun_registration(self, reg: Registration, collector: _Collector) -> bool:
        """``xla.lower_fun(f, multiple_results=m)`` registered for a primitive (directly, or
        by a rule whose body only calls it): it becomes ``mlir.lower_fun(f,
        multiple_results=m)`` registered with ``mlir.register_lowering``. True when ``reg``
        was this rule's to handle (rewritten or reported)."""
        call, rule_def = reg.rule, None
        if isinstance(call, cst.Name):
            function, _unknown = self._rule_function(call, reg.node, collector)
            forwarded = self._forwards_to_lower_fun(function) if function is not None else None
            if forwarded is None:
                return False
            call, rule_def = forwarded, function
        elif not (isinstance(call, cst.Call) and self._xla_attr(call.func) == "lower_fun"):
            return False
        problem = None
        args = positional(call)
        keywords = {a.keyword.value: a.value for a in call.args if a.keyword is not None}
        fun = args[0].value if args else keywords.get("fun")
        multiple = args[1].value if len(args) > 1 else keywords.get("multiple_results")
        extra = sorted(set(keywords) - {"fun", "multiple_results", "new_style", "with_avals"})
        if extra == ["instantiate"] and multiple is None and len(args) < 2 \
                and self._sets_multiple_results(self.ctx.module.code_for_node(reg.prim), collector):
            # The multiple_results era's lower_fun(fun, instantiate=False, initial_style=False)
            # traced ``fun`` with every output instantiated whatever ``instantiate`` said and
            # returned the tuple of its outputs: a multiple_results lowering.
            extra, multiple = [], cst.Name("True")
        if any(a.star for a in call.args) or len(args) > 2:
            problem = "its arguments are not `fun, multiple_results=...`"
        elif extra:
            problem = f"it passes {', '.join(f'`{k}=`' for k in extra)}, which mlir.lower_fun has no counterpart for"
        elif fun is None:
            problem = "it names no function"
        elif multiple is None:
            problem = ("it does not say multiple_results=, which the oldest releases did not have (one result, "
                       "`instantiate=` semantics): say whether the primitive returns a list")
        if problem:
            message = (f"xla.lower_fun was removed with translation rules and {problem}; "
                       "register `mlir.lower_fun(f, multiple_results=...)` with `mlir.register_lowering(prim, ...)`")
            self.report(reg.node, Safety.MANUAL, message)
            if rule_def is not None:
                self.report(call, Safety.MANUAL, message)
            return True
        register = self._mlir("register_lowering")
        lower = self._mlir("lower_fun")

        def build(_updated: cst.CSTNode) -> cst.CSTNode:
            lowering = cst.Call(cst.parse_expression(lower), [
                cst.Arg(fun, comma=SPACED_COMMA), cst.Arg(multiple, keyword=cst.Name("multiple_results"), equal=TIGHT_EQUAL)])
            register_call = self._register_lowering(reg, lowering, register)
            return register_call if isinstance(reg.node, cst.Call) else cst.Expr(register_call)

        if rule_def is not None:
            scope = self.ctx.scopes.get(rule_def)
            name = rule_def.name.value
            assignments = scope.assignments[name] if scope is not None else []
            references = [access.node for assignment in assignments for access in assignment.references]
            if len(assignments) != 1 or references != [reg.rule]:
                message = (f"`{name}` calls xla.lower_fun (removed with translation rules) and is used elsewhere too: "
                           "register `mlir.lower_fun(f, multiple_results=...)` with `mlir.register_lowering(prim, ...)`")
                self.report(reg.node, Safety.MANUAL, message)
                self.report(call, Safety.MANUAL, message)
                return True
        self._drop_xla_head(reg)
        if isinstance(call.func, cst.Name):
            # ``from jax.interpreters.xla import lower_fun``: the name is gone from that module.
            drop_binding_if_unused(self.ctx, call.func.value)
        if not self._drop_if_lowered(reg, Safety.SAFE, "xla.lower_fun translation (removed with translation rules): registration dropped"):
            self.report(reg.node, Safety.SAFE, "xla.lower_fun was removed with translation rules: "
                        "mlir.lower_fun lowers the same function inline, registered with mlir.register_lowering", build)
            if rule_def is None and isinstance(call.func, cst.Name):
                self._drop_local_import(call.func)
        if rule_def is not None:
            self.report(rule_def, Safety.SAFE, f"`{rule_def.name.value}` only called xla.lower_fun for its registration, "
                        "now registered directly: removed", lambda _n: cst.RemoveFromParent())
        return True

    # -- ops.Tuple of the operands ----------------------------------------------
    def _tuple_registration(self, reg: Registration, collector: _Collector) -> bool:
        """A builder rule ``lambda c, *args: ops.Tuple(c, args)`` (or ``lambda c, x, y:
        ops.Tuple(c, [x, y])``) registered for a ``multiple_results`` primitive: jax took
        the tuple apart into the primitive's results, which are the operands themselves, so
        the lowering rule returns its operands. True when ``reg`` was this rule's to handle."""
        rule = reg.rule
        if self._builder_lambda_of(reg, "Tuple") is None:
            return False
        operands = self._tuple_of_operands(rule)
        prim = self.ctx.module.code_for_node(reg.prim)
        if operands is None:
            self.report(reg.node, Safety.MANUAL, "translation rules were removed in jax 0.4.29; the rule returns `ops.Tuple` "
                        "of something other than its operands in order: write a lowering rule `lambda ctx, *args: [...]` "
                        "returning those values and register it with `mlir.register_lowering`")
            return True
        if not self._sets_multiple_results(prim, collector):
            self.report(reg.node, Safety.MANUAL, f"translation rules were removed in jax 0.4.29; the rule returns `ops.Tuple` of "
                        f"its operands, which are the results only of a primitive with several: `{prim}.multiple_results = True` "
                        "is not set in this module; register a lowering rule `lambda ctx, *args: args` with "
                        "`mlir.register_lowering` if it is one")
            return True
        self._lambda_lowering(reg, operands, "translation rule returning its operands as a tuple: registration dropped",
                              "translation rules were removed in jax 0.4.29: the rule returned `ops.Tuple` of its operands, "
                              "which jax took apart into the results; the MLIR lowering rule returns the operands themselves")
        return True

    def _builder_lambda_of(self, reg: Registration, op: str) -> Optional[cst.Call]:
        """The ``ops.<op>(...)`` call a builder rule registered as a lambda returns, if so."""
        rule = reg.rule
        if reg.form != "builder" or not isinstance(rule, cst.Lambda):
            return None
        call = rule.body
        return call if isinstance(call, cst.Call) and self._client_attr(call.func, "ops") == op else None

    def _lambda_lowering(self, reg: Registration, body: cst.BaseExpression, dropped: str, message: str, **extra) -> None:
        """Register ``reg``'s builder lambda as the MLIR lowering rule: its builder parameter
        is ``ctx`` and ``body`` its value; the registration goes instead where the module
        lowers the primitive already (``dropped`` says so)."""
        rule = reg.rule
        call = rule.body
        self._passthrough_calls.add(call)
        params = rule.params
        first = params.params[0].with_changes(name=cst.Name("ctx"))
        lowering = rule.with_changes(params=params.with_changes(params=[first, *params.params[1:]]), body=body)
        register = self._mlir("register_lowering")
        self._drop_xla_head(reg)
        drop_binding_if_unused(self.ctx, head_name(call.func))
        if not self._drop_if_lowered(reg, Safety.SAFE, dropped):
            self.report(reg.node, Safety.SAFE, message, lambda _n: cst.Expr(self._register_lowering(reg, lowering, register)),
                        **extra)

    def _token_registration(self, reg: Registration) -> bool:
        """A builder rule ``lambda c, *args: ops.CreateToken(c)`` (mpi4jax 2020's own
        ``create_token`` primitive): the lowering rule builds the same token,
        ``lambda ctx, *args: [hlo.create_token()]``, as jax lowers ``lax.create_token``.
        True when ``reg`` was this rule's to handle."""
        rule = reg.rule
        call = self._builder_lambda_of(reg, "CreateToken")
        if call is None:
            return False
        params = rule.params
        builder = params.params[0].name.value if params.params and not params.posonly_params else None
        if builder is None or len(call.args) != 1 or call.args[0].keyword is not None or call.args[0].star \
                or not (isinstance(call.args[0].value, cst.Name) and call.args[0].value.value == builder):
            self.report(reg.node, Safety.MANUAL, "translation rules were removed in jax 0.4.29; the rule's `ops.CreateToken` "
                        "is not given its own builder: write a lowering rule `lambda ctx, *args: [hlo.create_token()]` "
                        "(hlo: jax.extend.mlir.dialects.stablehlo) and register it with `mlir.register_lowering`")
            return True
        hlo = self._module("jax.extend.mlir.dialects.stablehlo", "hlo")
        token = cst.List([cst.Element(cst.parse_expression(f"{hlo}.create_token()"))])
        self._lambda_lowering(reg, token, "translation rule creating a token: registration dropped",
                              "translation rules were removed in jax 0.4.29: the rule returned `ops.CreateToken(c)`; the MLIR "
                              "lowering rule creates the same token with `stablehlo.create_token`",
                              kernel_receives="unchanged (a token, no custom call)")
        return True

    def _tuple_of_operands(self, rule: cst.Lambda) -> Optional[cst.BaseExpression]:
        """The operands the lowering rule returns when ``rule`` is ``lambda c, *args:
        ops.Tuple(c, args)`` or ``lambda c, x, y: ops.Tuple(c, [x, y])``: every operand,
        in order, and only the operands (``**params`` may follow, unread)."""
        params = rule.params
        if params.posonly_params or params.kwonly_params or not params.params \
                or any(p.default is not None for p in params.params):
            return None
        call = rule.body
        if len(call.args) != 2 or any(a.keyword is not None or a.star for a in call.args):
            return None
        builder, packed = call.args[0].value, call.args[1].value
        names = [p.name.value for p in params.params]
        if not (isinstance(builder, cst.Name) and builder.value == names[0]):
            return None
        star = params.star_arg.name.value if isinstance(params.star_arg, cst.Param) else None
        if star is not None:
            if len(names) == 1 and isinstance(packed, cst.Name) and packed.value == star:
                return packed
            return None
        if isinstance(packed, (cst.List, cst.Tuple)) and all(isinstance(e, cst.Element) and isinstance(e.value, cst.Name)
                                                              for e in packed.elements):
            if [e.value.value for e in packed.elements] == names[1:]:
                return cst.List([cst.Element(e.value) for e in packed.elements])
        return None

    def _sets_multiple_results(self, prim: str, collector: _Collector) -> bool:
        """Whether the module sets ``<prim>.multiple_results = True`` (and never anything else)."""
        values = [a.value for a in collector.assigns if len(a.targets) == 1
                  and isinstance(a.targets[0].target, cst.Attribute) and a.targets[0].target.attr.value == "multiple_results"
                  and self.ctx.module.code_for_node(a.targets[0].target.value) == prim]
        return bool(values) and all(isinstance(v, cst.Name) and v.value == "True" for v in values)

    def _drop_local_import(self, name: cst.Name) -> None:
        """``from jax.interpreters.xla import lower_fun`` inside the function registering it:
        the import fails on current jax, and the rewritten registration no longer reads it."""
        scope = self.ctx.scopes.get(name)
        if scope is None or scope is scope.globals:
            return
        assignments = list(scope.assignments[name.value])
        if len(assignments) != 1:
            return
        imported = assignments[0].node
        if not isinstance(imported, cst.ImportFrom) or len(imported.names) != 1:
            return
        if [access.node for access in assignments[0].references] != [name]:
            return
        statement = self.ctx.parents.get(imported)
        if isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1:
            self.report(statement, Safety.SAFE, "the local import of xla.lower_fun (removed with translation rules) "
                        "is no longer read: removed", lambda _n: cst.RemoveFromParent())

    def _forwards_to_lower_fun(self, function: cst.FunctionDef) -> Optional[cst.Call]:
        """The ``xla.lower_fun(...)`` call when ``function(c, *args, **params)`` only returns
        it applied to its own parameters (``t = xla.lower_fun(...); return t(c, *args,
        **params)``), with ``f`` not reading those parameters. Imports may come first
        (``from jax.interpreters import xla`` kept lazy): they go with the function, so
        ``f`` and ``multiple_results`` must not read what they bind."""
        statements = _statements(function)
        local: set[str] = set()
        while statements and isinstance(statements[0], (cst.Import, cst.ImportFrom)):
            bound = _import_bindings(statements[0])
            if bound is None:
                return None
            local |= bound
            statements = statements[1:]
        if statements is None or not 1 <= len(statements) <= 2 or not isinstance(statements[-1], cst.Return):
            return None
        applied = statements[-1].value
        if not isinstance(applied, cst.Call):
            return None
        lower = applied.func
        if len(statements) == 2:
            bind = statements[0]
            if not (isinstance(bind, cst.Assign) and len(bind.targets) == 1 and isinstance(bind.targets[0].target, cst.Name)
                    and isinstance(applied.func, cst.Name) and applied.func.value == bind.targets[0].target.value):
                return None
            lower = bind.value
        if not (isinstance(lower, cst.Call) and self._xla_attr(lower.func) == "lower_fun"):
            return None
        params = function.params
        if params.posonly_params or params.kwonly_params or any(p.default is not None for p in params.params):
            return None
        expected = [p.name.value for p in params.params]
        got = []
        for arg in applied.args:
            if arg.keyword is not None or not isinstance(arg.value, cst.Name):
                return None
            got.append((arg.star, arg.value.value))
        star = params.star_arg.name.value if isinstance(params.star_arg, cst.Param) else None
        kwargs = params.star_kwarg.name.value if params.star_kwarg is not None else None
        want = [("", n) for n in expected] + ([("*", star)] if star else []) + ([("**", kwargs)] if kwargs else [])
        if got != want:
            return None
        names = set(expected) | {star, kwargs}
        if any(n in names for n in walk.names_in(lower)):
            return None
        if local and any(local & walk.names_in(arg) for arg in lower.args):
            return None
        return lower

    # -- one rule function -------------------------------------------------------
    def _plan(self, function: cst.FunctionDef, form: str, bound: int = 0) -> Plan:
        plan = Plan(function, form)
        self._xla_typed_now = self._xla_typed(function)
        params = function.params
        positional_params = list(params.posonly_params) + list(params.params)
        if self._is_method(function):
            # A bound method registered as ``self.rule`` (or ``partial(self.rule, ...)``):
            # jax calls it without ``self``, which stays its first parameter.
            plan.skip = 1
            positional_params = positional_params[1:]
        # ``partial(rule, name)``: jax passes the builder or context after the bound
        # arguments, which the lowering rule receives the same way.
        plan.bound = bound
        plan.skip += bound
        if any(p.default is not None for p in positional_params[:bound]) or len(positional_params) < bound:
            plan.problem = "functools.partial binds more positional arguments than it has parameters without defaults"
            return plan
        positional_params = positional_params[bound:]
        needed = 3 if form == "ctx" else 1
        if len(positional_params) < needed:
            plan.problem = f"it takes fewer than {needed} positional parameters"
            return plan
        first = positional_params[0].name.value
        operand_params = [p.name.value for p in positional_params[needed:]]
        star = params.star_arg.name.value if isinstance(params.star_arg, cst.Param) else None
        avals = (positional_params[1].name.value, positional_params[2].name.value) if form == "ctx" else ()
        plan.ctx_name = "ctx" if form == "builder" else first
        unknown = [d for d in function.decorators if d not in self._registering and not self._forwarding_decorator(d)]
        if unknown:
            decorator = _snippet(self.ctx, unknown[0].decorator)
            plan.problem = (f"it is wrapped by `@{decorator}`, which is not a function of this project that passes the "
                            "rule's arguments and results through untouched, so what the rule receives and returns is not known here")
            return plan
        if _raises_only(function) or _always_raises(function):
            return self._plan_stub(plan, function, form)
        elementwise = self._elementwise_return(function, form, operand_params, star)
        if elementwise is not None:
            return self._plan_elementwise(plan, function, form, elementwise, operand_params)
        returned = _sole_return(function)
        if form == "builder" and isinstance(returned, cst.Name) and returned.value in operand_params \
                and returned.value not in self._static_params(function, operand_params):
            # ``def rule(c, x, tiles): return x``: a no-op on the backends that need none
            # (tessellate-ipu's CPU/GPU rules); jax wrapped the one op as the one result.
            plan.edits.append((returned, "a builder rule's one result, its operand -> [operand], the results of an "
                               "MLIR lowering rule", lambda updated: cst.List([cst.Element(updated)])))
            plan.edits.append((function, "translation rule signature -> MLIR lowering rule (ctx, *operands, **params)",
                               self._signature_edit(form, plan.ctx_name, plan.skip)))
            return plan
        if form == "ctx" and isinstance(returned, cst.List) and len(returned.elements) == 1 and not isinstance(returned.elements[0], cst.StarredElement):
            # ``return [helper(ctx.builder, ...)]``: the op's results are the rule's results.
            plan.edits.append((returned, "an MLIR lowering rule returns the results of the custom call", lambda updated: updated.elements[0].value))
            returned = returned.elements[0].value
        elif form == "ctx":
            returned = None
        if isinstance(returned, cst.Call) and isinstance(returned.func, cst.Name) and returned.args and self._is_builder_arg(returned.args[0], form, first):
            return self._plan_forward(plan, returned, form, first, avals, operand_params, star)
        if returned is None and form == "builder" and plan.bound:
            # celerite2: ``rev_spec = dict(...)`` then ``return _translation_rule(rev_spec, c,
            # *args)``: another rule of the same shape, given its own bound arguments.
            forwarded = self._bound_forward(function, first, plan.bound)
            if forwarded is not None:
                return self._plan_forward(plan, forwarded, form, first, avals, operand_params, star)
        plan.edits.clear()
        if any(self._client_attr(c.func, "ops") in OPS_CONVERTED for c in _calls_in(function.body)):
            if form != "builder":
                plan.problem = "it uses xla_client.ops.Reshape/Transpose in a translation rule taking (ctx, avals_in, avals_out)"
                return plan
            return self._plan_ops(plan, first, operand_params, star)
        scan = _FunctionScan(self, function, form, first, avals, operand_params)
        walk.read(function.body, scan)
        scan.finish()
        # A parameter rebound on some paths only would make its converted uses (an XLA
        # shape turned into a layout, say) wrong on the others.
        every_param = [p.name.value for p in list(params.posonly_params) + list(params.params) + list(params.kwonly_params)]
        every_param += [p.name.value for p in (params.star_arg, params.star_kwarg) if isinstance(p, cst.Param)]
        # A primitive parameter such as mpi4jax's `comm = unpack_hashable(comm)` may be
        # rebound: nothing the conversion maps reads it.
        operands_and_builder = (set(operand_params) - self._static_params(function, operand_params)) | {star, first}
        reassigned = sorted(
            p for p in every_param
            if (p in operands_and_builder and (p in scan.bindings or p in scan.rebound))
            or any(kind != "other" for _, kind, _ in scan.bindings.get(p, []))
        )
        if reassigned:
            plan.problem = scan.unread_unpacker if reassigned[0] == first and scan.unread_unpacker else \
                f"it reassigns its parameter `{reassigned[0]}`"
            return plan
        if scan.problem:
            plan.problem = scan.problem
            return plan
        # A builder parameter called ``ctx`` is the one ``ctx`` in the body: each of its
        # uses is converted, so the lowering context can take the name.
        if form == "builder" and first != "ctx" and "ctx" in scan.names_seen:
            plan.problem = "its body already uses the name `ctx`"
            return plan
        if not scan.custom_calls:
            why = self._builder_free_problem(function, form, first, avals)
            if why is None:
                return self._plan_builder_free(plan, function, avals)
            plan.problem = f"it builds no xla_client.ops custom call, and {why}"
            return plan
        plan.consumed = set(scan.custom_calls)
        plan.heads = {head_name(node) for node in scan.allowed if isinstance(node, cst.Attribute)} - {None}
        for call, container in scan.custom_calls.items():
            problem = self._plan_call(plan, call, container, scan, operand_params, star)
            if problem:
                plan.problem = problem
                return plan
        for const in scan.constants:
            assign = self.ctx.parents.get(const)
            method = scan.constant_methods.get(const)
            if isinstance(assign, cst.Assign) and assign.value is const:
                plan.edits.append((const, "a constant bound to a name -> its numpy value (the operand is made where the custom call uses it)",
                                   self._constant_edit(bound=True, method=method)))
            elif method is not None:
                scalar = BUILDER_CONSTANTS[method]
                value = f"np.{scalar}(v)" if scalar else "v"
                plan.edits.append((const, f"c.{method}(v) -> mlir.ir_constant(np.asarray({value}))", self._constant_edit(method=method)))
            else:
                plan.edits.append((const, "ops.ConstantLiteral(c, v) / ops.Constant(c, v) -> mlir.ir_constant(np.asarray(v))", self._constant_edit()))
        for call, (helper, text) in scan.helper_constants.items():
            constant = self._mlir("ir_constant")
            asarray = f"{self._numpy()}.asarray"
            plan.edits.append((call, f"`{helper.name.value}(c, x)`, which returns an XlaBuilder constant -> mlir.ir_constant of its value",
                               lambda _n, c=constant, a=asarray, t=text: cst.parse_expression(f"{c}({a}({t}))")))
            plan.helpers.setdefault(helper, set()).add(call)
        for call, (helper, text) in getattr(scan, "named_helper_constants", {}).items():
            plan.edits.append((call, f"`{helper.name.value}(c, x)` bound to a name, which returned an XlaBuilder constant "
                               "-> its NumPy value (the operand is made where the custom call uses it)",
                               lambda _n, t=text: cst.parse_expression(t)))
            plan.helpers.setdefault(helper, set()).add(call)
        for use in scan.constant_uses:
            constant = self._mlir("ir_constant")
            asarray = f"{self._numpy()}.asarray"
            # np.asarray again (the name holds an array already) so that the call reads as
            # a NumPy value wherever it is seen, as ir_constant requires.
            plan.edits.append((use, f"constant operand `{use.value}` -> mlir.ir_constant(np.asarray({use.value}))",
                               lambda updated, c=constant, a=asarray: cst.Call(cst.parse_expression(c), [
                                   cst.Arg(cst.Call(cst.parse_expression(a), [cst.Arg(updated)]))])))
        for seq in scan.unwraps:
            plan.edits.append((seq, "an MLIR lowering rule returns the results of the custom call", lambda updated: updated.elements[0].value))
        for call in getattr(scan, "tuple_returns", ()):
            plan.edits.append((call, "ops.Tuple(c, operands) returned -> the operands as the rule's results",
                               lambda updated: cst.List([cst.Element(e.value) for e in updated.args[1].value.elements])))
        if scan.tuple_gets:
            plan.problem = (f"`{_snippet(self.ctx, scan.tuple_gets[0])}` unpacks something other than a custom call's "
                            "one-token tuple result")
            return plan
        if isinstance(scan, _FunctionScan) and scan.token_tuples - scan.token_tuples_used:
            plan.problem = TOKEN_PROBLEM
            return plan
        for shape_call, kind in scan.shape_calls:
            plan.edits.append((shape_call, f"Shape.{kind} used as a layout -> its minor_to_major layout", _shape_edit(kind)))
        for token in scan.token_layouts:
            plan.edits.append((token, "Shape.token_shape() among a tuple's results -> the token's layout ()", lambda _n: cst.Tuple([])))
        for call, index in scan.get_shapes:
            plan.edits.append((call, f"c.get_shape(x) -> {plan.ctx_name}.avals_in[{index}] (the operand's aval)",
                               lambda _n, i=index: cst.parse_expression(f"{plan.ctx_name}.avals_in[{i}]")))
        for call, method_call, comp in getattr(scan, "star_shape_methods", ()):
            method = method_call.func.attr.value
            start = len(operand_params)
            plan.edits.append((call, "c.get_shape(x) of each operand -> x, each operand's aval",
                               lambda updated: updated.args[0].value))
            plan.edits.append((method_call, *_shape_method_edit(method)))
            plan.edits.append((comp.for_in.iter, f"the loop over *{star} -> over their avals",
                               lambda _n, k=start: cst.parse_expression(_avals_from(plan.ctx_name, k))))
        if getattr(scan, "aval_helper_calls", None):
            shaped = self._shaped_array()
            for call in scan.aval_helper_calls:
                plan.edits.append((call, "a helper's ShapedArray(s.dimensions(), s.element_type()) of an operand's builder shape "
                                   "-> ShapedArray(aval.shape, aval.dtype), the same aval",
                                   lambda updated, t=shaped: cst.Call(cst.parse_expression(t), [
                                       cst.Arg(cst.Attribute(updated.args[0].value, cst.Name("shape"))),
                                       cst.Arg(cst.Attribute(updated.args[0].value, cst.Name("dtype")))])))
        for call in scan.shape_methods:
            method = call.func.attr.value
            plan.edits.append((call, *_shape_method_edit(method)))
        for value in scan.aval_lists:
            first_star = len(operand_params)
            # A tuple stays a tuple (``shapes + more`` concatenates what it did); the rest were lists.
            kind = "tuple" if isinstance(value, cst.Call) and get_full_name_for_node(value.func) == "tuple" else "list"
            plan.edits.append((value, f"the builder shapes of *{star} -> {kind}({_avals_from(plan.ctx_name, first_star)}) (their avals, in operand order)",
                               lambda _n, k=first_star, t=kind: cst.parse_expression(f"{t}({_avals_from(plan.ctx_name, k)})")))
        for node in scan.default_layouts:
            plan.edits.append((node, "an operand's builder shape used as a layout -> None (its row-major default)",
                               lambda _n: cst.Name("None")))
        for name_node in scan.aval_names:
            attr = name_node.value
            plan.edits.append((name_node, f"{attr} -> {plan.ctx_name}.{attr}", lambda _n, a=attr: cst.parse_expression(f"{plan.ctx_name}.{a}")))
        for call, helper in scan.unpackers.items():
            plan.helpers.setdefault(helper, set()).add(call)
        for stmt in scan.builder_aliases:
            plan.edits.append((stmt, "the XlaBuilder is gone from MLIR lowering rules", lambda _n: cst.RemoveFromParent()))
        plan.edits.append((function, "translation rule signature -> MLIR lowering rule (ctx, *operands, **params)", self._signature_edit(form, plan.ctx_name, plan.skip)))
        return plan

    def _static_params(self, function: cst.FunctionDef, operand_params: list) -> set[str]:
        """The trailing positional parameters never used as an operand (an element of a
        tuple or list, ``c.get_shape``'s argument, an ``xla_client.ops`` argument other than
        a constant's, a value bound or returned as it is): primitive parameters, which jax
        passes by keyword, not operands (those come first, positionally)."""
        used: set[str] = set()
        for name in operand_params:
            for node in _name_nodes(function.body, name):
                parent = self.ctx.parents.get(node)
                if isinstance(parent, (cst.Attribute, cst.AssignTarget)):
                    continue  # `comm.handle`, or the name rebound
                if not isinstance(parent, cst.Arg):
                    used.add(name)
                    continue
                call = self.ctx.parents.get(parent)
                if parent.keyword is node or not isinstance(call, cst.Call):
                    continue
                ops = self._client_attr(call.func, "ops")
                if (
                    (parent.keyword is not None and parent.keyword.value == "operands")
                    or (isinstance(call.func, cst.Attribute) and call.func.attr.value in GET_SHAPE)
                    or (ops is not None and ops not in CONSTANTS)
                ):
                    used.add(name)
        bound = self._bind_keywords(function) | self._partial_keywords(function)
        static: set[str] = set()
        for name in reversed(operand_params):
            if name in used and name not in bound:
                break
            static.add(name)
        return static

    def _partial_keywords(self, function: cst.FunctionDef) -> set[str]:
        """The keywords ``functools.partial(rule, platform="cpu")`` binds for the rule in
        this module: never operands, whatever the body does with them."""
        found: set[str] = set()
        for call in self.collector.calls:
            if (self.ctx.qualified_name(call.func) == "functools.partial" and call.args
                    and isinstance(call.args[0].value, cst.Name) and call.args[0].value.value == function.name.value
                    and call.args[0].keyword is None):
                found.update(a.keyword.value for a in call.args[1:] if a.keyword is not None)
        return found

    def _bind_keywords(self, function: cst.FunctionDef) -> set[str]:
        """The keywords of the module's ``<primitive>.bind(...)`` calls for the primitives
        ``function`` is registered for: what jax hands it as primitive parameters
        (``mpi_allreduce_p.bind(x, token, op=op, comm=comm, transpose=t)``), however the
        rule reads them (``if transpose:``). Another primitive's keywords say nothing."""
        code = self.ctx.module.code_for_node
        prims = {" ".join(code(reg.prim).split()) for reg in self._registered
                 if function in (reg.functions or [reg.function])}
        names: set[str] = set()
        for call in self.collector.calls:
            if isinstance(call.func, cst.Attribute) and call.func.attr.value == "bind" \
                    and " ".join(code(call.func.value).split()) in prims:
                names.update(a.keyword.value for a in call.args if a.keyword is not None)
        return names

    def _builder_free_problem(self, function: cst.FunctionDef, form: str, context: str, avals: tuple) -> Optional[str]:
        """Why a translation rule that builds no custom call cannot become a lowering rule
        as it stands; None when it never touches XLA: its context and avals are only
        deleted, the module reaches no xla_client (so no op can be built here), and every
        call on the way, through the module's own functions and the class's methods, is one
        of those or a builtin that only rearranges values. The operands it hands back are
        then the results whatever they are: XlaOps before, MLIR values now."""
        if form != "ctx":
            return "a builder rule's single result would need wrapping (only `register_translation` rules are taken as they are)"
        # What the rule itself reads first: the module's use of xla_client may end with this
        # run (other rules migrated), and the reason a second run gives must be the same.
        used = _names_read_outside_del(function.body) & {context, *avals}
        if used:
            return f"it reads `{sorted(used)[0]}` other than to delete it"
        # Every way to the builder ops spells the module's name (xla_client, or
        # xla_extension for the types) in code, not only in a comment.
        if walk.names_in(self.ctx.module) & {"xla_client", "xla_extension"}:
            return "the module uses xla_client, so what its helpers build cannot be ruled out"
        klass = next((where for f, where in self.collector.functions.get(function.name.value, [])
                      if f is function and isinstance(where, cst.ClassDef)), None)
        seen: set = set()
        pending = [function]
        while pending:
            current = pending.pop()
            if current in seen:
                continue
            seen.add(current)
            for call in _calls_in(current.body):
                callee = self._local_callee(call.func, klass)
                if callee is None:
                    return f"it calls `{_snippet(self.ctx, call.func)}`, which this module does not define as plain Python"
                if isinstance(callee, cst.FunctionDef):
                    pending.append(callee)
        return None

    def _local_callee(self, func: cst.BaseExpression, klass: Optional[cst.ClassDef]):
        """The function ``func`` names when it is a module function or a method of
        ``klass`` (``self.m``), ``True`` for a builtin that only rearranges values, else None."""
        if isinstance(func, cst.Name):
            if func.value in VALUE_BUILTINS and func.value not in self.collector.functions \
                    and self.ctx.qualified_name(func) in (None, f"builtins.{func.value}", func.value):
                return True
            defs = [f for f, where in self.collector.functions.get(func.value, []) if where is None]
            return defs[0] if len(defs) == 1 and not defs[0].decorators else None
        if klass is not None and isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value == "self":
            defs = [f for f, where in self.collector.functions.get(func.attr.value, []) if where is klass]
            return defs[0] if len(defs) == 1 and not defs[0].decorators else None
        return None

    def _plan_builder_free(self, plan: Plan, function: cst.FunctionDef, avals: tuple) -> Plan:
        """The rule's body stays; the avals leave the signature (and any ``del`` of them)
        and annotations naming removed XLA types go."""
        for stmt in _del_statements(function.body):
            kept = [t for t in _del_targets(stmt) if t not in avals]
            if len(kept) == len(_del_targets(stmt)):
                continue
            if kept:
                plan.edits.append((stmt, "avals_in / avals_out are no longer parameters: not deleted",
                                   lambda _n, k=kept: cst.Del(target=cst.parse_expression(", ".join(k)))))
            else:
                plan.edits.append((stmt, "avals_in / avals_out are no longer parameters: not deleted", lambda _n: cst.RemoveFromParent()))
        removed_types = (*CLIENT_MODULES, *XLA_TYPE_MODULES, *XLA_MODULES)
        xla_typed = {p.name.value for p in [*function.params.params, function.params.star_arg] if isinstance(p, cst.Param)
                     and p.annotation is not None and self._names_removed_type(p.annotation.annotation, removed_types)}
        returns_xla = function.returns is not None and self._names_removed_type(function.returns.annotation, removed_types)
        self._xla_typed_now |= xla_typed
        signature = self._signature_edit(plan.form, plan.ctx_name, plan.skip)
        plan.edits.append((function, "translation rule that builds nothing (it hands back operands) -> MLIR lowering rule "
                           "(ctx, *operands, **params) with the same body",
                           lambda updated: signature(updated.with_changes(returns=None) if returns_xla else updated)))
        return plan

    def _elementwise_return(self, function: cst.FunctionDef, form: str, operand_params: list,
                            star: Optional[str]) -> Optional[cst.BaseExpression]:
        """The op tree of a rule whose body is only ``return [ops.Add(ops.Mul(x, y), z)]``
        (``return <tree>`` for a builder rule) over its operands: elementwise XLA ops with a
        NumPy counterpart and no broadcast dimensions (jax's primitives tutorial)."""
        value = _sole_return(function)
        if star is not None or value is None:
            return None
        if form == "ctx":
            if not (isinstance(value, cst.List) and len(value.elements) == 1 and isinstance(value.elements[0], cst.Element)):
                return None
            value = value.elements[0].value
        if not isinstance(value, cst.Call):
            return None

        def tree(node: cst.BaseExpression) -> bool:
            if isinstance(node, cst.Name):
                return node.value in operand_params
            if not isinstance(node, cst.Call) or any(a.keyword or a.star for a in node.args):
                return False
            op = self._client_attr(node.func, "ops")
            return op in ELEMENTWISE and len(node.args) == ELEMENTWISE[op][1] and all(tree(a.value) for a in node.args)

        return value if tree(value) else None

    def _plan_elementwise(self, plan: Plan, function: cst.FunctionDef, form: str, value: cst.Call,
                          operand_params: list) -> Plan:
        """``ops.Add(ops.Mul(x, y), z)`` -> ``mlir.lower_fun(lambda x, y, z: jnp.add(jnp.multiply(x, y), z),
        multiple_results=False)(ctx, x, y, z)``: jax lowers the same elementwise ops."""
        jnp = self._name("jax.numpy", "jnp")
        lower_fun = self._mlir("lower_fun")

        def numpy_form(node: cst.BaseExpression) -> cst.BaseExpression:
            if isinstance(node, cst.Name):
                return cst.Name(node.value)
            name = ELEMENTWISE[self._client_attr(node.func, "ops")][0]
            comma = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
            args = [cst.Arg(numpy_form(a.value)) for a in node.args]
            args = [a.with_changes(comma=comma) for a in args[:-1]] + args[-1:]
            return cst.Call(func=cst.parse_expression(f"{jnp}.{name}"), args=args)

        expression = cst.Module([]).code_for_node(numpy_form(value))
        names = ", ".join(operand_params)
        ctx_name = plan.ctx_name
        text = f"{lower_fun}(lambda {names}: {expression}, multiple_results=False)({ctx_name}, {names})"
        returned = self.ctx.parents.get(value)
        container = self.ctx.parents.get(returned) if form == "ctx" else None
        target = container if isinstance(container, cst.List) else value
        plan.edits.append((target, "elementwise XLA ops -> mlir.lower_fun of the same jax.numpy operations (jax lowers them "
                           "to the same StableHLO ops; its broadcasting covers XLA's implicit one)",
                           lambda _n: cst.parse_expression(text)))
        plan.edits.append((function, "translation rule signature -> MLIR lowering rule (ctx, *operands, **params)",
                           self._signature_edit(form, ctx_name, plan.skip)))
        plan.heads = {head_name(c.func) for c in _calls_in(function.body)} - {None}
        return plan

    def _names_removed_type(self, annotation: cst.BaseExpression, modules: tuple) -> bool:
        names = [n for n in dotted_names(annotation)]
        return any(any((self.ctx.qualified_name(n) or "").startswith(m + ".") for m in modules) for n in names)

    def _plan_ops(self, plan: Plan, builder: str, operand_params: list, star: Optional[str]) -> Plan:
        """A builder rule that reshapes/transposes around its custom call: every XlaOp
        becomes an MLIR value, each builder op the StableHLO op of the same semantics."""
        scan = _OpsScan(self, plan.function, builder, operand_params, star)
        problem = scan.run()
        if problem is None and builder != "ctx" and "ctx" in scan.names_seen:
            problem = "its body already uses the name `ctx`"
        if problem is not None:
            plan.problem = problem
            return plan
        call = scan.custom_call
        kind = self._client_attr(call.func, "ops")
        names = CUSTOM_CALL_PARAMS[kind]
        values = _call_values(call, names)
        if isinstance(values, str):
            plan.problem = values
            return plan
        if kind == "CustomCall" and self.ctx.options.target_jax < SKIP_LAYOUTS:
            plan.unsafe = "ops.CustomCall had no layouts; on jax < 0.7.0 ffi_lowering adds row-major layouts"
        api = values.get("api_version")
        number = API_VERSIONS.get((get_full_name_for_node(api) or "").rsplit(".", 1)[-1]) if api is not None else 1
        if number is None:
            plan.problem = f"api_version `{self.ctx.module.code_for_node(api)}` is not a CustomCallApiVersion member"
            return plan
        # What the op received and returned, as avals for ffi_lowering's types and layouts.
        avals_in, aligned = [], True
        for position, element in enumerate(values["operands"].elements):
            name = element.value.value
            if name in operand_params and name not in scan.rebound:
                avals_in.append(f"ctx.avals_in[{operand_params.index(name)}]")
                aligned = aligned and operand_params.index(name) == position
            else:
                avals_in.append(f"{AVAL_HELPER}({name})")
                aligned = False
        aligned = aligned and len(avals_in) == len(operand_params) and star is None
        shape = values.get("shape_with_layout", values.get("shape"))
        results = scan.result_avals(shape)
        if results is None or (None in results and not scan.returned_directly):
            plan.problem = ("the custom call's result is used by builder ops but its shape is not `c.get_shape(x)` of an op, "
                            "so its aval is not known here")
            return plan
        code = self.ctx.module.code_for_node
        result_avals = None if None in results else [code(r) if not isinstance(r, str) else r for r in results]
        tuple_result = isinstance(shape, cst.Call) and self._client_attr(shape.func, "Shape") == "tuple_shape"

        # Spellings once the plan holds: each may add an import.
        hlo = self._module("jax.extend.mlir.dialects.stablehlo", "hlo")
        ir = self._module("jax.extend.mlir.ir", "ir")
        dense = self._mlir("dense_int_array")
        if not aligned or any(isinstance(r, str) and r.startswith(AVAL_HELPER) for r in results):
            self.ctx.add_helper(AVAL_HELPER, self._aval_helper_code())
        if tuple_result and self._tuple_count(None, shape) in (1, -1):
            # A tuple of one result stays a tuple (see _tuple_lowering_code).
            ffi_lowering = self.ctx.add_helper(TUPLE_LOWERING_HELPER, self._tuple_lowering_code())
        else:
            ffi_lowering = self.ctx.name_for("jax.ffi.ffi_lowering")
        target_expr = values["call_target_name"]
        decoded = literal_bytes_as_str(target_expr)
        str_encoded = self._str_encoded(target_expr)
        if decoded is None and not str_encoded \
                and not (isinstance(target_expr, cst.SimpleString) and "b" not in target_expr.prefix.lower()):
            self.ctx.add_helper(TARGET_NAME_HELPER, TARGET_NAME_HELPER_CODE)
        replace = []
        if not aligned:
            replace.append(f"avals_in=[{', '.join(avals_in)}]")
        if result_avals is not None:
            replace.append(f"avals_out=[{', '.join(result_avals)}]")
        ctx_code = f"ctx.replace({', '.join(replace)})" if replace else "ctx"
        skip = kind == "CustomCall" and self.ctx.options.target_jax >= SKIP_LAYOUTS
        first_result = not tuple_result and not scan.returned_directly

        def lowering(updated: cst.CSTNode) -> cst.CSTNode:
            new = _call_values(updated, names)
            target = decoded if decoded is not None else new["call_target_name"]
            if decoded is None and str_encoded and encoded_text(target) is not None:
                target = encoded_text(target)
            elif decoded is None and not (isinstance(target, cst.SimpleString) and "b" not in target.prefix.lower()):
                target = cst.Call(cst.Name(TARGET_NAME_HELPER), [cst.Arg(target)])
            keywords = [("api_version", cst.Integer(str(number)))]
            for legacy, modern in (("opaque", "backend_config"), ("has_side_effect", "has_side_effect")):
                if legacy in new:
                    keywords.append((modern, new[legacy]))
            if kind == "CustomCallWithLayout":
                result = new["shape_with_layout"]
                keywords.append(("operand_layouts", new["operand_shapes_with_layout"]))
                keywords.append(("result_layouts", result if tuple_result else cst.List([cst.Element(result)])))
            elif skip:
                keywords.append(("skip_ffi_layout_processing", cst.Name("True")))
            lowering = _lowering_call(ffi_lowering, target, keywords, self.ctx.module.default_indent, updated)
            args = [cst.Arg(cst.parse_expression(ctx_code))] + [cst.Arg(e.value) for e in new["operands"].elements]
            args = [a.with_changes(comma=SPACED_COMMA) for a in args[:-1]] + args[-1:]
            lowered = cst.Call(lowering, args)
            return cst.Subscript(lowered, [cst.SubscriptElement(cst.Index(cst.Integer("0")))]) if first_result else lowered

        message = f"xla_client.ops.{kind} (removed in jax 0.6.0) -> jax.ffi.ffi_lowering(api_version={number}) in an MLIR lowering rule"
        plan.edits.append((call, message, lowering))
        for op_call, op in scan.ops:
            plan.edits.append((op_call, f"xla_client.ops.{op} -> the StableHLO op of the same semantics",
                               _reshape_edit(hlo, ir) if op == "Reshape" else _transpose_edit(hlo, dense)))
        for const in scan.constants:
            plan.edits.append((const, "ops.ConstantLiteral(c, v) / ops.Constant(c, v) -> mlir.ir_constant(np.asarray(v))", self._constant_edit()))
        if isinstance(scan, _FunctionScan) and scan.token_tuples - scan.token_tuples_used:
            return TOKEN_PROBLEM
        for shape_call, shape_kind in scan.shape_calls:
            plan.edits.append((shape_call, f"Shape.{shape_kind} used as a layout -> its minor_to_major layout", _shape_edit(shape_kind)))
        for node in scan.default_layouts:
            plan.edits.append((node, "an op's builder shape used as a layout -> None (its row-major default)", lambda _n: cst.Name("None")))
        for get_shape, aval in scan.get_shapes:
            plan.edits.append((get_shape, f"c.get_shape(x) -> {aval} (the op's aval)", lambda _n, a=aval: cst.parse_expression(a)))
        for method_call in scan.shape_methods:
            method = method_call.func.attr.value
            plan.edits.append((method_call, *_shape_method_edit(method)))
        for value in scan.wrapped_returns:
            plan.edits.append((value, "an MLIR lowering rule returns a list of results", lambda updated: cst.List([cst.Element(updated)])))
        plan.consumed = {call}
        plan.heads = {head_name(c.func) for c in scan.client_calls} - {None}
        plan.edits.append((plan.function, "translation rule signature -> MLIR lowering rule (ctx, *operands, **params)",
                           self._signature_edit("builder", "ctx", plan.skip)))
        return plan

    def _aval_helper_code(self) -> str:
        ir = self._module("jax.extend.mlir.ir", "ir")
        np_ = self._numpy()
        to_ir = self._mlir("dtype_to_ir_type")
        return f'''
def {AVAL_HELPER}(value):
    """What XlaBuilder.get_shape gave for an op: the MLIR value's shape and dtype, as an aval (added by ccmigrate)."""
    tensor = {ir}.RankedTensorType(value.type)
    for dtype in map({np_}.dtype, ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
                                "bfloat16", "float16", "float32", "float64", "complex64", "complex128")):
        if {to_ir}(dtype) == tensor.element_type:
            return {self._shaped_array()}(tuple(tensor.shape), dtype)
    raise TypeError(f"no NumPy dtype for {{tensor.element_type}}")
'''.strip()

    def _plan_call(self, plan: Plan, call: cst.Call, container, scan: "_FunctionScan", operand_params, star) -> Optional[str]:
        kind = scan.custom_call_kind(call)
        names = CUSTOM_CALL_PARAMS[kind]
        # The builder method's receiver is the builder; it takes no builder argument.
        method = kind == METHOD
        values: dict[str, cst.BaseExpression] = {}
        if any(a.star for a in call.args):
            return "a custom call takes *args/**kwargs"
        builder_by_keyword = not method and keyword(call, "builder") is not None
        skip_positional = 0 if builder_by_keyword or method else 1
        for index, arg in enumerate(positional(call)[skip_positional:]):
            if index >= len(names):
                return "a custom call has too many positional arguments"
            values[names[index]] = arg.value
        for arg in call.args:
            if arg.keyword is not None and (method or arg.keyword.value != "builder"):
                values[arg.keyword.value] = arg.value
        unknown = set(values) - set(names)
        if unknown:
            return f"a custom call has unknown arguments {sorted(unknown)}"
        if "call_target_name" not in values or "operands" not in values:
            return "a custom call lacks its target name or operands"
        if plan.form == "ctx" and call not in scan.wrapped:
            return "the translation rule does not return `[op]`"
        if plan.form == "builder" and call in scan.wrapped:
            return "the builder rule does not return the op itself"
        # Operands and the avals they need.
        operands_expr = values["operands"]
        ctx_name = plan.ctx_name
        # ``operands=tuple(ins)`` (BrainPy): the same operands as ``*ins``, in order.
        wrapped = _sequence_call(operands_expr, scan.bindings)
        if wrapped and isinstance(wrapped[0], cst.Name) and wrapped[0].value == star:
            operands_expr = wrapped[0]
        if isinstance(operands_expr, cst.Name) and operands_expr.value == star and not operand_params:
            aval_codes, aligned = None, True
        else:
            try:
                avals = self._operand_avals(scan, operands_expr, operand_params, star, ctx_name, call)
            except _NotConvertible as exc:
                return str(exc)
            aval_codes = [code for code, _ in avals]
            indices = [index for _, index in avals]
            aligned = indices == list(range(len(operand_params))) + ([-1] if star is not None else [])
        # A one-token tuple result unpacked by ``return ops.GetTupleElement(r, 0)``: the
        # custom call keeps its tuple type (the kernel sees the same result buffers).
        token_types = None
        shape_value = values.get("shape_with_layout", values.get("shape"))
        if shape_value is not None and self._token_tuple(scan, shape_value):
            scan.token_tuples_used.add(self._shape_value(scan, shape_value))
            result_name = next((name for name, calls in scan.result_calls.items() if any(c is call for c, _ in calls)), None)
            gets = [g for g in scan.tuple_gets if result_name is not None and g.args[0].value.value == result_name]
            uses = scan.result_uses.get(result_name, []) if result_name is not None else []
            if (kind != "CustomCall" or plan.form != "builder" or self.ctx.options.target_jax < SKIP_LAYOUTS
                    or not gets or len(gets) != len(uses) or any(g.args[1].value.value != "0" for g in gets)):
                return TOKEN_PROBLEM
            hlo = self._module("jax.extend.mlir.dialects.stablehlo", "hlo")
            ir = self._module("jax.extend.mlir.ir", "ir")
            token_types = f"[{ir}.TupleType.get_tuple([{hlo}.TokenType.get()])]"
            for get in gets:
                scan.tuple_gets.remove(get)
                plan.edits.append((get, "ops.GetTupleElement(r, 0) of the one-token tuple -> [hlo.get_tuple_element(r[0], 0)]",
                                   lambda updated, h=hlo: cst.List([cst.Element(cst.parse_expression(
                                       f"{h}.get_tuple_element({self.ctx.module.code_for_node(updated.args[0].value)}[0], 0)"))])))
            statement = self._dead_shape_binding(scan, shape_value, plan.function)
            if statement is not None:
                plan.edits.append((statement, "the XLA tuple shape, now the custom call's result_types, is gone",
                                   lambda _n: cst.RemoveFromParent()))
        # Results a builder rule unpacks from the custom call's tuple (``return
        # ops.GetTupleElement(out, 0)``, the others scratch buffers of the kernel): the call
        # keeps every result, with the avals of the tuple's shapes.
        result_avals = None
        if token_types is None and scan.tuple_gets and plan.form == "builder" and shape_value is not None:
            found = self._unpacked_results(scan, call, shape_value)
            if isinstance(found, str):
                return found
            if found is not None:
                result_avals, gets = found
                for get in gets:
                    scan.tuple_gets.remove(get)
                    plan.edits.append((get, "ops.GetTupleElement(r, k) of the custom call's results -> [r[k]]",
                                       lambda updated: cst.List([cst.Element(cst.Subscript(updated.args[0].value, [
                                           cst.SubscriptElement(cst.Index(updated.args[1].value))]))])))
                if kind == "CustomCall":
                    statement = self._dead_shape_binding(scan, shape_value, plan.function)
                    if statement is not None:
                        plan.edits.append((statement, "the XLA tuple shape, now the custom call's avals_out, is gone",
                                           lambda _n: cst.RemoveFromParent()))
        if kind == "CustomCall" and token_types is None and result_avals is None and shape_value is not None:
            # ``sh = Shape.array_shape(...)`` read only as ``shape=sh``: ffi_lowering takes the
            # result types from ctx.avals_out, so the XLA shape goes with the keyword.
            statement = self._dead_shape_binding(scan, shape_value, plan.function)
            value = statement.body[0].value if statement is not None else None
            if isinstance(value, cst.Call) and self._client_attr(value.func, "Shape") \
                    and all(_pure_argument(a.value) for a in value.args):
                plan.edits.append((statement, "the XLA shape of an ops.CustomCall without layouts is gone with it "
                                   "(the result types come from ctx.avals_out)", lambda _n: cst.RemoveFromParent()))
                scan.shape_calls = [(c, k) for c, k in scan.shape_calls if statement not in self.ctx.ancestors_of(c)]
        # Layouts.
        layouts: dict[str, bool] = {}
        default_layouts = False
        if kind != "CustomCall":
            if "shape_with_layout" not in values or "operand_shapes_with_layout" not in values:
                return "a CustomCallWithLayout lacks its shapes"
            counts = [_display_length(values.get(k)) for k in ("operands", "operand_shapes_with_layout")]
            if None not in counts and counts[0] != counts[1]:
                # [RUN] jax 0.4.28: "Must specify a shape with layout for each operand for custom
                # call with constrained layout; given 2 shapes, expected 1".
                return (f"it gives {counts[0]} operand(s) but {counts[1]} operand shape(s): XlaBuilder raised "
                        "INVALID_ARGUMENT on that, so the rule never built and the layouts it meant are unknown")
            row_major = [self._row_major_value(scan, values[k]) for k in ("shape_with_layout", "operand_shapes_with_layout")]
            # The operands' own builder shapes as their layouts: the row-major default the
            # builder gave them, whatever the result's layouts are.
            own_shapes = self._own_shapes(scan, values["operand_shapes_with_layout"])
            if own_shapes:
                row_major[1] = row_major[0]
            if any(row_major) and not all(row_major):
                return "its layouts mix a row-major shape helper's with others"
            default_layouts = all(row_major)
            if default_layouts:
                problem = self._drop_row_major_bindings(plan, scan)
                if problem:
                    return problem
        if kind != "CustomCall" and not default_layouts:
            result_kind = scan.shape_kind(values["shape_with_layout"], call)
            if result_kind is None:
                return "its result shape is not built with Shape.array_shape / tuple_shape"
            operand_shapes = values["operand_shapes_with_layout"]
            if own_shapes:
                plan.edits.append((operand_shapes, "the operands' own builder shapes as their layouts -> None (their "
                                   "row-major default)", lambda _n: cst.Name("None")))
            elif not scan.shapes_known(operand_shapes, call):
                code = _snippet(self.ctx, operand_shapes)
                return (f"its operand shapes `{code}` are not built with Shape.array_shape in the rule, "
                        "so their layouts are not known here")
            if result_kind == "tuple_shape" and plan.form == "ctx":
                return "a translation rule returning one tuple-shaped op"
            layouts["result_tuple"] = plan.tuple_result = result_kind == "tuple_shape"
        elif self.ctx.options.target_jax < SKIP_LAYOUTS:
            plan.unsafe = "ops.CustomCall had no layouts; on jax < 0.7.0 ffi_lowering adds row-major layouts"
        api = values.get("api_version")
        if api is not None:
            api_name = get_full_name_for_node(api) or ""
            number = API_VERSIONS.get(api_name.rsplit(".", 1)[-1])
            if number is None:
                return f"api_version `{self.ctx.module.code_for_node(api)}` is not a CustomCallApiVersion member"
        else:
            number = 1
        count = self._tuple_count(scan, shape_value) if shape_value is not None else None
        # XlaBuilder kept a tuple of one result a tuple: a kernel on CPU reaches its outputs
        # through the tuple's table of pointers, and ffi_lowering would give the array itself
        # (a tuple of several is what its several results become in XLA anyway). A tuple of
        # as many results as the rule finds is decided when it lowers.
        if token_types is None and result_avals is None and count in (1, -1):
            ffi_lowering = self.ctx.add_helper(TUPLE_LOWERING_HELPER, self._tuple_lowering_code())
        else:
            ffi_lowering = self.ctx.name_for("jax.ffi.ffi_lowering")
        target_expr = values["call_target_name"]
        decoded_literal = literal_bytes_as_str(target_expr)
        str_encoded = self._str_encoded(target_expr)
        if decoded_literal is None and not str_encoded \
                and not (isinstance(target_expr, cst.SimpleString) and "b" not in target_expr.prefix.lower()):
            self.ctx.add_helper(TARGET_NAME_HELPER, TARGET_NAME_HELPER_CODE)
        skip = kind == "CustomCall" and self.ctx.options.target_jax >= SKIP_LAYOUTS
        replace = [] if aligned or aval_codes is None else [f"avals_in=[{', '.join(aval_codes)}]"]
        if result_avals is not None:
            replace.append(f"avals_out=[{', '.join(result_avals)}]")
        ctx_code = f"{ctx_name}.replace({', '.join(replace)})" if replace else ctx_name

        def edit(updated: cst.CSTNode) -> cst.CSTNode:
            assert isinstance(updated, cst.Call)
            new = {}
            pos = [a for a in updated.args if a.keyword is None]
            for index, arg in enumerate(pos[skip_positional:]):
                new[names[index]] = arg.value
            for arg in updated.args:
                if arg.keyword is not None and (method or arg.keyword.value != "builder"):
                    new[arg.keyword.value] = arg.value
            target = new["call_target_name"]
            if decoded_literal is not None:
                target = decoded_literal
            elif str_encoded and encoded_text(target) is not None:
                target = encoded_text(target)  # ``"...".encode()``: the str itself
            elif not (isinstance(target, cst.SimpleString) and "b" not in target.prefix.lower()):
                target = cst.Call(cst.Name(TARGET_NAME_HELPER), [cst.Arg(target)])
            keywords = [("api_version", cst.Integer(str(number)))]
            if "opaque" in new:
                keywords.append(("backend_config", new["opaque"]))
            if "has_side_effect" in new:
                keywords.append(("has_side_effect", new["has_side_effect"]))
            if kind != "CustomCall" and not default_layouts:
                keywords.append(("operand_layouts", new["operand_shapes_with_layout"]))
                result = new["shape_with_layout"]
                keywords.append(("result_layouts", result if layouts["result_tuple"] else cst.List([cst.Element(result)])))
            elif skip:
                keywords.append(("skip_ffi_layout_processing", cst.Name("True")))
            if token_types is not None:
                keywords.append(("result_types", cst.parse_expression(token_types)))
            lowering = _lowering_call(ffi_lowering, target, keywords, self.ctx.module.default_indent, updated)
            if aval_codes is None:
                call_args = [cst.Arg(cst.parse_expression(ctx_code), comma=SPACED_COMMA), cst.Arg(cst.Name(star), star="*")]
            else:
                operands = new["operands"]
                call_args = [cst.Arg(cst.parse_expression(ctx_code))]
                # A tuple bound to a name is passed as *name: evaluated once, as before.
                if isinstance(operands, cst.BinaryOperation):
                    operands = operands.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
                if isinstance(operands, cst.Call) and not operands.args:
                    spread = []  # ``tuple()``: no operands
                elif isinstance(operands, (cst.Name, cst.BinaryOperation, cst.Call)):
                    spread = [cst.StarredElement(operands)]  # ``*tuple(... for v in dims)`` too
                else:
                    spread = operands.elements
                for element in spread:
                    call_args[-1] = call_args[-1].with_changes(comma=SPACED_COMMA)
                    starred = isinstance(element, cst.StarredElement)
                    call_args.append(cst.Arg(element.value, star="*" if starred else ""))
            return cst.Call(lowering, call_args)

        legacy = (f"the builder method c.{call.func.attr.value} (old jaxlib's ComputationBuilder, which had no api_version: ORIGINAL)"
                  if method else f"xla_client.ops.{kind} (removed in jax 0.6.0)")
        via = (f"{TUPLE_LOWERING_HELPER}(api_version={number}) (jax.ffi.ffi_lowering keeping XlaBuilder's one tuple-typed "
               "result)" if ffi_lowering == TUPLE_LOWERING_HELPER else f"jax.ffi.ffi_lowering(api_version={number})")
        plan.edits.append((call, f"{legacy} -> {via} in an MLIR lowering rule", edit))
        if plan.form == "ctx" and container is not None:
            plan.edits.append((container, "an MLIR lowering rule returns the results of the custom call", lambda updated: updated.elements[0].value))
        return None

    def _str_encoded(self, target: cst.BaseExpression) -> bool:
        """``"name".encode()`` or ``f"..."``/a name bound once to a string, encoded: its
        bytes decode back to that str (another object may have an ``encode`` of its own)."""
        inner = encoded_text(target)
        if isinstance(inner, cst.Name):
            inner = self.ctx.value_bound_once(inner)

        def text(node) -> bool:
            if isinstance(node, cst.ConcatenatedString):
                return text(node.left) and text(node.right)
            return isinstance(node, cst.FormattedString) or (
                isinstance(node, cst.SimpleString) and isinstance(node.evaluated_value, str))

        return inner is not None and text(inner)

    def _unpacked_results(self, scan: "_FunctionScan", call: cst.Call, shape: cst.BaseExpression):
        """``(result avals, gets)`` when the custom call's result is bound to a name read
        only in ``return ops.GetTupleElement(name, k)`` and its shape is
        ``Shape.tuple_shape([...])`` of ``Shape.array_shape(dtype, dims[, layout])`` shapes
        (each one written there, or bound to a name once): their avals are
        ``ShapedArray(dims, dtype)``. ``None`` when the call is not unpacked; a reason when
        it is, but not so."""
        result_name = next((name for name, calls in scan.result_calls.items() if any(c is call for c, _ in calls)), None)
        if result_name is None:
            return None
        gets = [g for g in scan.tuple_gets if g.args[0].value.value == result_name]
        if not gets:
            return None
        if len(gets) != len(scan.result_uses.get(result_name, [])):
            return f"the custom call's results `{result_name}` are read other than by ops.GetTupleElement"
        value = self._shape_value(scan, shape)
        if not (isinstance(value, cst.Call) and self._client_attr(value.func, "Shape") == "tuple_shape"
                and len(value.args) == 1 and isinstance(value.args[0].value, (cst.List, cst.Tuple))):
            return "the custom call's tuple shape is not written as Shape.tuple_shape([...]) in the rule"
        elements = value.args[0].value.elements
        avals = []
        for element in elements:
            shape_call = self._shape_value(scan, element.value) if not isinstance(element, cst.StarredElement) else None
            args = [a for a in shape_call.args if a.keyword is None and not a.star] \
                if isinstance(shape_call, cst.Call) and self._client_attr(shape_call.func, "Shape") == "array_shape" else []
            if len(args) not in (2, 3) or not all(self._plain_shape_part(scan, a.value) for a in args[:2]):
                return (f"the custom call's result shape `{_snippet(self.ctx, element.value)}` is not "
                        "Shape.array_shape(dtype, dims) of values the lowering rule still has")
            dims, dtype = (self.ctx.module.code_for_node(a.value) for a in (args[1], args[0]))
            avals.append(f"{self._shaped_array()}({dims}, {dtype})")
        if any(int(g.args[1].value.value) >= len(avals) for g in gets):
            return "ops.GetTupleElement reads past the custom call's results"
        return avals, gets

    def _plain_shape_part(self, scan: "_FunctionScan", expr: cst.BaseExpression) -> bool:
        """A dtype or dimensions the MLIR rule computes the same way: names the rule binds
        once (no builder, no XlaBuilder op), numbers, and tuples, subscripts and arithmetic
        of them."""
        if isinstance(expr, cst.Integer):
            return True
        if isinstance(expr, cst.Name):
            # Bound once (or a parameter): the avals written at the call read what the shape
            # read where it was built.
            return (expr.value not in scan.builder_names and self.ctx.qualified_name(expr) is None
                    and expr.value not in scan.rebound and len(scan.bindings.get(expr.value, [])) <= 1)
        if isinstance(expr, (cst.Tuple, cst.List)):
            return all(not isinstance(e, cst.StarredElement) and self._plain_shape_part(scan, e.value) for e in expr.elements)
        if isinstance(expr, cst.Subscript):
            return self._plain_shape_part(scan, expr.value) and all(
                isinstance(e.slice, cst.Index) and self._plain_shape_part(scan, e.slice.value) for e in expr.slice)
        if isinstance(expr, cst.BinaryOperation):
            return self._plain_shape_part(scan, expr.left) and self._plain_shape_part(scan, expr.right)
        return False

    @staticmethod
    def _row_major_value(scan: "_FunctionScan", value: cst.BaseExpression) -> bool:
        """A row-major shape helper's call, or a name bound only to its shapes."""
        if isinstance(value, cst.Call):
            return value in scan.rowmajor_calls or (scan._rowmajor_tuple(value) and value.args[0].value in scan.rowmajor_calls)
        if isinstance(value, cst.Subscript):  # ``helper(specs)[0]``
            return isinstance(value.value, cst.Call) and value.value in scan.rowmajor_calls
        if isinstance(value, cst.Name):
            kinds = {k for _, k, _ in scan.bindings.get(value.value, [])}
            return bool(kinds) and kinds <= set(ROW_MAJOR_KINDS) and value.value not in scan.rebound
        return False

    @staticmethod
    def _own_shapes(scan: "_FunctionScan", value: cst.BaseExpression) -> bool:
        """A name bound only to the operands' builder shapes (``shapes = [c.get_shape(a)
        for a in args]``), given whole as their layouts: each operand's own, the
        row-major default."""
        return isinstance(value, cst.Name) and {k for _, k, _ in scan.bindings.get(value.value, [])} == {"avals"} \
            and value.value not in scan.rebound

    def _drop_row_major_bindings(self, plan: Plan, scan: "_FunctionScan") -> Optional[str]:
        """The statements binding the helper's shapes go with the layouts they gave: each
        one of the rule's body, or an ``if`` whose branches only bind them (envpool's one
        result or a tuple of them); the helper is dropped once nothing else calls it."""
        bound = {id(a) for a in scan.rowmajor_assigns}
        covered: set[int] = set()

        def only_bindings(block) -> bool:
            statements = block.body if isinstance(block, cst.IndentedBlock) else []
            return bool(statements) and all(
                isinstance(st, cst.SimpleStatementLine) and all(id(small) in bound for small in st.body) for st in statements)

        body = plan.function.body.body if isinstance(plan.function.body, cst.IndentedBlock) else []
        for stmt in body:
            if isinstance(stmt, cst.SimpleStatementLine) and stmt.body and all(id(small) in bound for small in stmt.body):
                covered.update(id(small) for small in stmt.body)
                plan.edits.append((stmt, "XLA shapes a row-major shape helper built are gone with the layouts they gave",
                                   lambda _n: cst.RemoveFromParent()))
            elif isinstance(stmt, cst.If):
                branches, current = [], stmt
                while isinstance(current, cst.If):
                    branches.append(current.body)
                    current = current.orelse.body if isinstance(current.orelse, cst.If) else current.orelse
                if current is not None:
                    branches.append(current.body)
                if all(only_bindings(b) for b in branches):
                    covered.update(id(small) for b in branches for st in b.body for small in st.body)
                    plan.edits.append((stmt, "an `if` choosing between row-major XLA shapes is gone with the layouts they gave",
                                       lambda _n: cst.RemoveFromParent()))
        if bound - covered:
            return "row-major XLA shapes are bound where they cannot be dropped with the layouts they gave"
        for call, helper in scan.rowmajor_calls.items():
            plan.helpers.setdefault(helper, set()).add(call)
        return None

    def _token_tuple(self, scan: "_FunctionScan", shape: cst.BaseExpression) -> bool:
        """``shape`` is ``Shape.tuple_shape([Shape.token_shape()])``, or a name bound to it once."""
        return self._shape_value(scan, shape) in scan.token_tuples

    def _tuple_count(self, scan: Optional["_FunctionScan"], shape: cst.BaseExpression) -> Optional[int]:
        """How many results ``Shape.tuple_shape(...)`` holds (through a name bound once to
        it): the length of a literal list or tuple, -1 for one built otherwise (the numba
        bridges' ``tuple_shape(shapes)``); None when ``shape`` is not a tuple shape."""
        value = self._shape_value(scan, shape)
        if not (isinstance(value, cst.Call) and self._client_attr(value.func, "Shape") == "tuple_shape"
                and len(value.args) == 1 and value.args[0].keyword is None and not value.args[0].star):
            return None
        elements = value.args[0].value
        if isinstance(elements, (cst.Tuple, cst.List)) and not any(isinstance(e, cst.StarredElement) for e in elements.elements):
            return len(elements.elements)
        return -1

    def _tuple_lowering_code(self) -> str:
        ir = self._module("jax.extend.mlir.ir", "ir")
        hlo = self._module("jax.extend.mlir.dialects.stablehlo", "hlo")
        ffi_lowering = self.ctx.name_for("jax.ffi.ffi_lowering")
        to_ir = self._mlir("aval_to_ir_type")
        context = "ctx.module_context, " if self.ctx.options.target_jax >= AVAL_TO_IR_TYPE_CTX else ""
        return f'''
def {TUPLE_LOWERING_HELPER}(call_target_name, **kwargs):
    """jax.ffi.ffi_lowering for a custom call XlaBuilder made with a tuple shape (added by ccmigrate): a tuple
    of one result stays a tuple, its element taken out for the rule, since on CPU a legacy kernel reaches its
    outputs through the tuple's table of pointers; several results are that tuple in XLA already."""

    def lowering(ctx, *operands):
        if len(ctx.avals_out) != 1:
            return {ffi_lowering}(call_target_name, **kwargs)(ctx, *operands)
        (aval,) = ctx.avals_out
        result_types = [{ir}.TupleType.get_tuple([{to_ir}({context}aval)])]
        (result,) = {ffi_lowering}(call_target_name, result_types=result_types, **kwargs)(ctx, *operands)
        return [{hlo}.get_tuple_element(result, 0)]

    return lowering
'''.strip()

    @staticmethod
    def _shape_value(scan: Optional["_FunctionScan"], shape: cst.BaseExpression) -> Optional[cst.BaseExpression]:
        """What the binding of ``shape`` that reaches it holds (itself when not a name);
        without a scan of the rule, ``shape`` as written."""
        if isinstance(shape, cst.Name) and scan is not None:
            return scan.reaching_value(shape.value, shape)
        return shape

    def _dead_shape_binding(self, scan: "_FunctionScan", shape: cst.BaseExpression, function: cst.FunctionDef):
        """The statement ``sh = Shape.tuple_shape(...)`` when ``sh`` is read only where ``shape`` is."""
        if not isinstance(shape, cst.Name) or len(_name_nodes(function.body, shape.value)) != 2 \
                or not scan.values.get(shape.value):
            return None  # (a walrus binding is none the scan records)
        assign = self.ctx.parents.get(scan.values[shape.value][0])
        statement = self.ctx.parents.get(assign)
        if isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1 and statement.body[0] is assign:
            return statement
        return None

    def constant_helper(self, call: cst.Call, site_ok) -> Optional[tuple[cst.FunctionDef, str]]:
        """``(helper, value code)`` for ``helper(c, arg)`` where the helper, defined in this
        module, only returns ``ops.Constant(c, expr)``: the value is ``expr`` with ``arg``
        in place of its parameter, evaluated where the call was."""
        if not isinstance(call.func, cst.Name) or len(call.args) != 2 or any(a.keyword or a.star for a in call.args):
            return None
        function, _ = self._rule_function(call.func, call, self.collector)
        if function is None:
            return self._imported_constant_helper(call, site_ok)
        parts = _constant_helper_parts(function, lambda func: self._client_attr(func, "ops") in CONSTANTS)
        if parts is None:
            return None
        builder, value, made = parts
        expr = made.args[1].value
        used = walk.names_in(expr)
        if builder in used or _has_own_scope(expr):
            return None
        # The argument is written where each use of the parameter was: only plain values
        # may be repeated without evaluating anything twice.
        argument = call.args[1].value
        if not _plain_value(argument) or not site_ok(used - {value}):
            return None
        replaced = expr.visit(_Substitute(value, argument))
        return function, self.ctx.module.code_for_node(replaced)

    def _imported_ops_aliases(self) -> set[str]:
        """Local names imported from another project module that binds them once to
        ``xla_client.ops`` there (mpi4jax's ``from ..utils import _ops``)."""
        found = set()
        for binding in self.ctx.names.imports:
            if binding.from_module is None or binding.qualified.split(".")[0] in ("jax", "jaxlib"):
                continue
            where = defining_file(self.ctx.path, self.ctx.package, binding.qualified)
            if where is None:
                continue
            try:
                read = _foreign_module(where[0], os.stat(where[0]).st_mtime_ns)
            except OSError:
                continue
            if read is not None and where[1] in read[3]:
                found.add(binding.local)
        return found

    def row_major_helper(self, func: cst.BaseExpression) -> Optional[cst.FunctionDef]:
        """The module-level function ``func`` names when it only returns XLA shapes with
        row-major layouts (envpool's ``_shape_with_layout(specs)``: ``array_shape(d, s,
        tuple(range(len(s) - 1, -1, -1)))`` or ``scalar_shape(d)`` per spec): the layouts
        ffi_lowering gives by default. ``self._shape_with_layout(specs)`` in a method names
        the class's own method of that body: a ``@staticmethod`` of one parameter, or a
        method taking ``self`` and one parameter (envpool's ``XlaMixin``)."""
        if isinstance(func, cst.Attribute):
            function = self._row_major_method(func)
            if function is None:
                return None
        elif not isinstance(func, cst.Name):
            return None
        else:
            found = [f for f, enclosing in self.collector.functions.get(func.value, []) if enclosing is None]
            if len(found) != 1 or found[0].decorators:
                return None
            function = found[0]
        if function in self._row_major_cache:
            return function if self._row_major_cache[function] else None
        body = [stmt for stmt in function.body.body if not (
            isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 and isinstance(stmt.body[0], cst.Expr)
            and isinstance(stmt.body[0].value, (cst.SimpleString, cst.ConcatenatedString)))] \
            if isinstance(function.body, cst.IndentedBlock) else []
        ok = len(body) == 1 and isinstance(body[0], cst.SimpleStatementLine) and len(body[0].body) == 1 \
            and isinstance(body[0].body[0], cst.Return) and body[0].body[0].value is not None
        shapes = 0
        for call in _calls_in(function) if ok else ():
            if self._client_attr(call.func, "ops") is not None:
                ok = False
            kind = self._client_attr(call.func, "Shape")
            if kind is None:
                continue
            args = [a for a in call.args if a.keyword is None and not a.star]
            if len(args) != len(call.args):
                ok = False
            elif kind == "scalar_shape" and len(args) == 1:
                shapes += 1
            elif kind == "array_shape" and len(args) == 2:
                shapes += 1
            elif kind == "array_shape" and len(args) == 3 and _row_major_of(self.ctx, args[2].value, args[1].value):
                shapes += 1
            else:
                ok = False
        self._row_major_cache[function] = ok and shapes > 0
        return function if self._row_major_cache[function] else None

    def shape_to_aval_helper(self, func: cst.BaseExpression) -> bool:
        """``func`` names a function of this module (or imported from another module of the
        project) of one parameter ``s`` whose body is ``return ShapedArray(s.dimensions(),
        s.element_type())``: the aval of an XLA shape, which is what ctx.avals_in holds."""
        function = None
        if isinstance(func, cst.Name):
            found = [f for f, enclosing in self.collector.functions.get(func.value, []) if enclosing is None]
            function = found[0] if len(found) == 1 else None
        if function is None:
            function = self.project_function(func)
        if function is None or function.decorators:
            return False
        params = function.params
        if len(params.params) != 1 or params.posonly_params or params.kwonly_params \
                or isinstance(params.star_arg, cst.Param) or params.star_kwarg is not None:
            return False
        param = params.params[0].name.value
        # Imports before the return are allowed (``from jax.abstract_arrays import ShapedArray``).
        statements = [st for st in _statements(function) or () if not isinstance(st, (cst.Import, cst.ImportFrom))]
        value = statements[0].value if len(statements) == 1 and isinstance(statements[0], cst.Return) else None
        if not (isinstance(value, cst.Call) and (get_full_name_for_node(value.func) or "").rsplit(".", 1)[-1] == "ShapedArray"
                and len(value.args) == 2 and all(a.keyword is None and not a.star for a in value.args)):
            return False
        wanted = (f"{param}.dimensions()", f"{param}.element_type()")
        return tuple(re.sub(r"\s+", "", self.ctx.module.code_for_node(a.value)) for a in value.args) == wanted

    def _row_major_method(self, func: cst.Attribute) -> Optional[cst.FunctionDef]:
        """The method ``self.name`` names, read in a method of the class defining it, when
        it takes one parameter besides ``self`` (none for a ``@staticmethod``)."""
        scopes = self._scopes_around(func)
        method = scopes[0] if scopes and isinstance(scopes[0], cst.FunctionDef) else None
        klass = self.ctx.parents.get(self.ctx.parents.get(method)) if method is not None else None
        if not isinstance(klass, cst.ClassDef) or not isinstance(func.value, cst.Name) or method.decorators:
            return None
        own = list(method.params.posonly_params) + list(method.params.params)
        if not own or own[0].name.value != func.value.value:
            return None
        everywhere = self.collector.functions.get(func.attr.value, [])
        defs = [f for f, where in everywhere if where is klass]
        # A subclass may give ``self`` another body (column-major layouts, say): the method
        # must be defined once, here, and named by no other module that could subclass.
        if len(defs) != 1 or len(everywhere) != 1 or self._method_used_elsewhere(func.attr.value):
            return None
        function = defs[0]
        params = function.params
        static = [get_full_name_for_node(d.decorator) for d in function.decorators] == ["staticmethod"]
        if function.decorators and not static:
            return None
        if params.posonly_params or params.kwonly_params or isinstance(params.star_arg, cst.Param) \
                or params.star_kwarg is not None or len(params.params) != (1 if static else 2):
            return None
        if not static and _name_nodes(function.body, params.params[0].name.value):
            return None
        return function

    def _method_used_elsewhere(self, name: str) -> bool:
        """Whether another module of the package (or a script beside this one) reads
        ``.name`` or defines ``name`` in a class body: a subclass there may call the method
        or give it another body. A module-level function of that name does not count."""
        pattern = re.compile(rb"\." + re.escape(name.encode()) + rb"\b|^[ \t]+def[ \t]+" + re.escape(name.encode()) + rb"\b",
                             re.MULTILINE)
        for other in package_files_mentioning(self.ctx.path, self.ctx.package, name):
            try:
                with open(other, "rb") as fh:
                    if pattern.search(fh.read()):
                        return True
            except OSError:
                return True
        return False

    def _defining_module(self, func: cst.BaseExpression) -> Optional[tuple[str, str, int]]:
        """``(file, name, mtime)`` of the project module defining what ``func`` (a name
        imported from another module of the project) names."""
        qualified = self.ctx.qualified_name(func)
        where = defining_file(self.ctx.path, self.ctx.package, qualified) if qualified else None
        if where is None:
            return None
        try:
            return where[0], where[1], os.stat(where[0]).st_mtime_ns
        except OSError:
            return None

    def unread_helper(self, func: cst.BaseExpression, builder: str) -> Optional[str]:
        """Why ``builder = func(builder)`` cannot be read, when ``func`` is imported from a
        module of the project that is not in reach (a snapshot without it, say)."""
        qualified = self.ctx.qualified_name(func)
        if qualified is None or qualified.split(".")[0] in ("jax", "jaxlib") or self._defining_module(func) is not None:
            return None
        module, _, name = qualified.rpartition(".")
        if not module or module.strip(".") == "":
            return None
        return (f"it rebinds its builder with `{builder} = {name}({builder})` from module `{module}`, which is not "
                f"found beside this file: whether that helper only unwraps the builder (as mpi4jax's "
                f"`getattr({builder}, \"_builder\", {builder})` does) cannot be read; run ccmigrate where that module "
                "is present")

    def project_function(self, func: cst.BaseExpression) -> Optional[cst.FunctionDef]:
        """The module-level function another module of the project defines, which ``func``
        (a name imported from it) names."""
        where = self._defining_module(func)
        read = _foreign_module(where[0], where[2]) if where is not None else None
        return read[0].get(where[1]) if read is not None else None

    def _imported_constant_helper(self, call: cst.Call, site_ok) -> Optional[tuple[cst.FunctionDef, str]]:
        """The same as :meth:`constant_helper` for a helper imported from another module of
        the project (mpi4jax's ``xla_constant_intc(c, n)`` from ``utils.py``): its body is
        read from that module, whose names the value may use only for NumPy."""
        where = self._defining_module(call.func)
        if where is None:
            return None
        found = _foreign_constant_helper(*where)
        if found is None:
            return None
        function, builder, value, expr, numpy_names = found
        names = _read_names(expr)
        if builder in names or _has_own_scope(expr) or names - numpy_names - _BUILTIN_NAMES - {value}:
            return None
        argument = call.args[1].value
        spelling = self._numpy() if numpy_names else None
        # ``np.intc(v)``: a scalar of a known type, whose aval needs no second evaluation of
        # the argument; then the argument may be any expression (it is evaluated once, where
        # the helper's call evaluated it).
        scalar = (isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute)
                  and isinstance(expr.func.value, cst.Name) and expr.func.value.value in numpy_names
                  and len(expr.args) == 1 and not expr.args[0].keyword and not expr.args[0].star
                  and isinstance(expr.args[0].value, cst.Name) and expr.args[0].value.value == value)
        # The names the inlined value reads must mean here what they meant there.
        if not (scalar or _plain_value(argument)) or not site_ok(
                (names & _BUILTIN_NAMES) | ({spelling.split(".")[0]} if spelling else set())):
            return None
        replaced = expr
        for name in numpy_names:  # first: the argument's own names are this module's
            replaced = replaced.visit(_Substitute(name, cst.parse_expression(spelling)))
        replaced = replaced.visit(_Substitute(value, argument))
        if scalar:
            return function, self.ctx.module.code_for_node(replaced), f"(), {spelling}.{expr.func.attr.value}"
        return function, self.ctx.module.code_for_node(replaced)

    def _operand_avals(self, scan: "_FunctionScan", expr: cst.BaseExpression, operand_params: list, star, ctx_name: str,
                       at: cst.CSTNode, depth: int = 0) -> list[tuple[str, Optional[int]]]:
        """One ``(aval code, parameter index or None)`` per operand, in order."""
        code = _snippet(self.ctx, expr)
        if isinstance(expr, cst.Name) and depth < 3:
            if expr.value == star:
                # ``*rest`` holds the operands after the named ones.
                start = len(operand_params)
                return [(f"*{_avals_from(ctx_name, start)}", -1)]
            values = scan.values.get(expr.value, [])
            if len(values) == 1 and expr.value not in scan.rebound and isinstance(values[0], (cst.Tuple, cst.List)):
                if isinstance(values[0], cst.List) and mutated_in(scan._function, expr.value):
                    # ``ops = [x, u]`` then ``ops.append(c)``: the display no longer lists them.
                    raise _NotConvertible(f"the operand list `{code}` is changed after it is written, so its operands "
                                          "cannot be paired with avals here")
                return self._operand_avals(scan, values[0], operand_params, star, ctx_name, at, depth + 1)
            raise _NotConvertible(f"the operands `{code}` are not a tuple or list written in the rule")
        if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.Add) and depth < 3:
            # ``(descriptor,) + operands``: XlaBuilder took the concatenated sequence.
            return (self._operand_avals(scan, expr.left, operand_params, star, ctx_name, at, depth + 1)
                    + self._operand_avals(scan, expr.right, operand_params, star, ctx_name, at, depth + 1))
        if (isinstance(expr, cst.Subscript) and isinstance(expr.value, cst.Name) and expr.value.value == star
                and star not in scan.bindings and star not in scan.rebound
                and len(expr.slice) == 1 and isinstance(expr.slice[0].slice, cst.Slice)):
            # ``*rest[::-1]``: the same slice of the avals after the named operands.
            start = len(operand_params)
            return [(f"*{ctx_name}.avals_in[{start}:][{self.ctx.module.code_for_node(expr.slice[0].slice)}]", None)]
        generated = expr
        wrapped = _sequence_call(expr, scan.bindings)
        if wrapped == ():
            return []  # ``operands=tuple()``: a custom call without operands
        if wrapped:
            generated = wrapped[0]
        if isinstance(generated, (cst.GeneratorExp, cst.ListComp)) and depth < 3:
            # ``tuple(ops.ConstantLiteral(c, np.int32(v)) for v in dims.values())``
            # (celerite2): one constant per element, their avals by the same loop.
            constant = scan.constant_value(generated.elt)
            if constant is None or not self._repeatable_loop(scan, generated.for_in):
                raise _NotConvertible(f"the operands `{code}` are not a tuple or list written in the rule")
            text = self.ctx.module.code_for_node(constant)
            loop = " ".join(self.ctx.module.code_for_node(generated.for_in).split())
            np_ = self._numpy()
            return [(f"*[{self._shaped_array()}({np_}.shape({text}), {np_}.asarray({text}).dtype) {loop}]", None)]
        if not isinstance(expr, (cst.Tuple, cst.List)):
            raise _NotConvertible(f"the operands `{code}` are not a tuple or list written in the rule")
        found: list[tuple[str, Optional[int]]] = []
        for element in expr.elements:
            value = element.value
            if isinstance(element, cst.StarredElement):
                found += self._operand_avals(scan, value, operand_params, star, ctx_name, at, depth + 1)
                continue
            if isinstance(value, cst.Name) and value.value in operand_params:
                index = operand_params.index(value.value)
                found.append((f"{ctx_name}.avals_in[{index}]", index))
            elif isinstance(value, cst.Name) and value.value in scan.constant_vars:
                found.append((f"{self._shaped_array()}({value.value}.shape, {value.value}.dtype)", None))
            elif value in scan.helper_avals:
                found.append((f"{self._shaped_array()}({scan.helper_avals[value]})", None))
            elif value in scan.helper_constants:
                text = scan.helper_constants[value][1]
                found.append((f"{self._shaped_array()}({self._numpy()}.shape({text}), {self._numpy()}.asarray({text}).dtype)", None))
            else:
                constant = scan.constant_value(value)
                if constant is None:
                    raise _NotConvertible(
                        f"operand `{one_line(self.ctx.module.code_for_node(value))[:60]}` is neither a parameter of the rule nor an ops.Constant/ConstantLiteral")
                text = self.ctx.module.code_for_node(constant)
                found.append((f"{self._shaped_array()}({self._numpy()}.shape({text}), {self._numpy()}.asarray({text}).dtype)", None))
        return found

    def _repeatable_loop(self, scan: "_FunctionScan", loop: cst.CompFor) -> bool:
        """A comprehension's one ``for`` whose iterable gives the same elements when the
        avals are listed by it again: ``range(...)``, ``d.values()`` / ``keys()`` /
        ``items()`` of a name, or a name bound once to a tuple or list display."""
        if loop.inner_for_in is not None or loop.ifs or loop.asynchronous is not None:
            return False
        source = loop.iter
        if isinstance(source, cst.Call) and get_full_name_for_node(source.func) == "range" and "range" not in scan.bindings:
            return True
        if isinstance(source, cst.Call) and not source.args and isinstance(source.func, cst.Attribute) \
                and source.func.attr.value in ("values", "keys", "items") and isinstance(source.func.value, cst.Name):
            return True
        if isinstance(source, cst.Name):
            values = scan.values.get(source.value, [])
            return len(values) == 1 and source.value not in scan.rebound and isinstance(values[0], (cst.Tuple, cst.List))
        return False

    def _is_builder_arg(self, arg: cst.Arg, form: str, first: str) -> bool:
        value = arg.value
        if arg.keyword is not None or arg.star:
            return False
        if form == "builder":
            return isinstance(value, cst.Name) and value.value == first
        return (isinstance(value, cst.Attribute) and value.attr.value == "builder"
                and isinstance(value.value, cst.Name) and value.value.value == first)

    def _bound_forward(self, function: cst.FunctionDef, builder: str, bound: int) -> Optional[cst.Call]:
        """``return helper(b1, ..., c, *operands)`` last in a builder rule registered with
        ``bound`` arguments of ``partial``, ``c`` its builder right after the helper's own
        ``bound`` arguments, and before it only plain statements that never read the
        builder (celerite2's ``_rev_translation_rule`` building its spec)."""
        statements = _statements(function)
        if not statements or not isinstance(statements[-1], cst.Return) or not isinstance(statements[-1].value, cst.Call):
            return None
        call = statements[-1].value
        args = call.args
        if not isinstance(call.func, cst.Name) or len(args) <= bound or any(a.keyword is not None or a.star for a in args[:bound + 1]) \
                or not (isinstance(args[bound].value, cst.Name) and args[bound].value.value == builder):
            return None
        for earlier in [*statements[:-1], *(a.value for a in args[:bound])]:
            if builder in walk.names_in(earlier) or "ctx" in walk.names_in(earlier):
                return None
        return call

    def _plan_forward(self, plan: Plan, call: cst.Call, form: str, first: str, avals: tuple, operand_params: list, star) -> Plan:
        """``return helper(c, *operands)``: the helper, a builder rule in all but its
        registration, becomes the lowering rule's body and receives ``ctx`` instead. With
        arguments before the builder (``return helper(spec, c, *operands)``), as many as
        ``partial`` binds for this rule: the helper must be a rule registered with as many."""
        function = plan.function
        name = call.func.value
        helper, unknown = self._rule_function(call.func, call, self.collector)
        if helper is None:
            plan.problem = f"it passes the XlaBuilder to `{name}`, and {unknown}"
            return plan
        if helper is function:
            plan.problem = "it calls itself"
            return plan
        lead = plan.bound if not self._is_builder_arg(call.args[0], form, first) else 0
        plan.forward_lead = lead
        forwarded = [a for a in call.args[lead + 1:] if a.keyword is None]
        expected = operand_params + ([f"*{star}"] if star else [])
        spelt = [("*" if a.star == "*" else "") + (a.value.value if isinstance(a.value, cst.Name) else "?") for a in forwarded]
        if spelt != expected or any(a.star == "**" for a in call.args):
            plan.problem = (f"it passes the XlaBuilder to `{name}` with arguments other than its operands in order "
                            f"({', '.join(expected) or 'none'}), so the helper's parameters are not the lowering rule's operands")
            return plan
        hparams = helper.params
        positional_params = list(hparams.posonly_params) + list(hparams.params)
        keywords = [a for a in call.args[1:] if a.keyword is not None]
        kwonly = {p.name.value for p in hparams.kwonly_params}
        if (not positional_params
                or (not star and len(positional_params) - 1 - lead != len(operand_params))
                or (star and any(p.default is not None for p in positional_params[1 + lead:]))
                or any(a.keyword.value not in kwonly for a in keywords)):
            plan.problem = (f"it passes the XlaBuilder to `{name}`, whose parameters do not take the rule's operands one "
                            "for one (and its parameters only as keyword-only ones)")
            return plan
        blocked = {first, *avals, "ctx"} if form == "builder" else {first, *avals}
        for arg in keywords:
            if walk.names_in(arg.value) & blocked:
                plan.problem = f"it passes `{self.ctx.module.code_for_node(arg.value)}` to `{name}`"
                return plan
        if form == "builder" and "ctx" in walk.names_in(function.body) | {p.name.value for p in hparams.kwonly_params}:
            plan.problem = "its body already uses the name `ctx`"
            return plan
        if not name.startswith("_") or re.search(rf"__all__[^\n]*[\'\"]{re.escape(name)}[\'\"]", self.ctx.module.code):
            plan.problem = (f"it passes the XlaBuilder to `{name}`, which other modules may call with a builder too "
                            "(it is public): make it private, or rewrite it and its callers as MLIR lowering rules")
            return plan
        plan.forward, plan.forward_call = helper, call
        ctx_name = plan.ctx_name
        plan.edits.append((call.args[lead].value, f"the XlaBuilder handed to `{name}` -> the lowering context",
                           lambda _n: cst.Name(ctx_name)))
        plan.edits.append((function, "translation rule signature -> MLIR lowering rule (ctx, *operands, **params)",
                           self._signature_edit(form, ctx_name, plan.skip)))
        return plan

    def _link_forwards(self, plans: dict, registrations: list) -> None:
        """Plan each helper that rules hand their builder to as a builder rule; a helper
        converts only together with every rule that calls it, and only when nothing else
        calls it (another caller would still hand it an XlaBuilder)."""
        groups: dict = {}
        for plan in list(plans.values()):
            if plan.forward is not None:
                groups.setdefault(plan.forward, []).append(plan)
        for helper, callers in groups.items():
            name = helper.name.value
            hplan = plans.get(helper)
            if hplan is None:
                hplan = plans[helper] = self._plan(helper, "builder")
            problem = None
            if hplan.form != "builder":
                problem = "it is also registered as a translation rule (ctx, avals_in, avals_out, ...)"
            elif any(plan.forward_lead != hplan.skip for plan in callers):
                problem = "its builder is not where its own registration puts it for every caller"
            elif hplan.forward is not None:
                problem = "it hands the builder on again"
            elif hplan.problem:
                problem = hplan.problem
            elif hplan.tuple_result and any(plan.form == "ctx" for plan in callers):
                problem = "a translation rule returning one tuple-shaped op"
            scope = self.ctx.scopes.get(helper)
            allowed = {id(plan.forward_call.func) for plan in callers}
            for reg in registrations:
                if reg.function is helper:
                    allowed |= {id(n) for n in _name_nodes(reg.rule, name)}
            if problem is None and scope is not None:
                assignments = scope.assignments[name]
                references = [access.node for assignment in assignments for access in assignment.references]
                if len(assignments) != 1 or any(id(ref) not in allowed for ref in references):
                    problem = "it is also used other than by the translation rules that hand it their builder"
            problem = problem or next((plan.problem for plan in callers if plan.problem), None)
            if problem is None:
                for plan in callers:
                    plan.unsafe = plan.unsafe or hplan.unsafe
                continue
            for plan in callers:
                if not plan.problem:
                    plan.problem = f"it passes the XlaBuilder to `{name}`, which cannot be rewritten with it ({problem})"
            if not hplan.problem:
                hplan.problem = f"a rule that hands it the XlaBuilder stays ({problem})"

    def _plan_stub(self, plan: Plan, function: cst.FunctionDef, form: str) -> Plan:
        """A rule whose body only raises, or cannot return (no ``return``, a ``raise`` last:
        netket's GPU stand-in for a numba kernel printing a debug line first): the lowering
        rule raises the same, whatever it calls on the way, as long as it reads none of its
        parameters (the builder, operands or avals)."""
        params = function.params
        names = {p.name.value for p in list(params.posonly_params) + list(params.params) + list(params.kwonly_params)}
        for extra in (params.star_arg, params.star_kwarg):
            if isinstance(extra, cst.Param):
                names.add(extra.name.value)
        used = walk.names_in(function.body)
        if used & (names | {"operands", "params"}):
            plan.problem = "its body raises with a parameter of the translation rule"
            return plan
        leading = (list(params.posonly_params) + list(params.params))[:plan.skip + 1]
        first = leading[-1].name.value
        ctx_name = first if form == "ctx" and first not in used else "ctx"
        bound = "".join(f"{p.name.value}, " for p in leading[:-1])

        def edit(updated: cst.CSTNode) -> cst.CSTNode:
            # An MLIR lowering rule is called as rule(ctx, *operands, **params): accept
            # every call so that the body's exception is what the caller sees.
            return updated.with_changes(params=cst.parse_expression(f"lambda {bound}{ctx_name}, *operands, **params: 0").params,
                                        whitespace_before_params=cst.SimpleWhitespace(""))

        plan.edits.append((function, "translation rule that only raises -> MLIR lowering rule (ctx, *operands, **params) raising the same", edit))
        return plan

    # -- edits -------------------------------------------------------------------
    def _constant_edit(self, bound: bool = False, method: Optional[str] = None):
        """``ops.Constant(c, v)``, or the builder method ``c.<method>(v)``, -> its value."""
        constant = None if bound else self._mlir("ir_constant")
        numpy = self._numpy()
        asarray = f"{numpy}.asarray"

        def edit(updated: cst.CSTNode) -> cst.CSTNode:
            args = [a for a in updated.args if a.keyword is None]
            value = args[1].value if method is None else _builder_constant_value(args[0].value, method, numpy)
            already = isinstance(value, cst.Call) and get_full_name_for_node(value.func) in (f"{numpy}.asarray", f"{numpy}.array")
            array = value if already else cst.Call(cst.parse_expression(asarray), [cst.Arg(value)])
            return array if bound else cst.Call(cst.parse_expression(constant), [cst.Arg(array)])

        return edit

    def _xla_typed(self, function: cst.FunctionDef) -> set[str]:
        """Parameters annotated with an XlaBuilder type (``XlaBuilder``, ``XlaOp``): the
        lowering rule receives a context and MLIR values, and the annotation alone would
        keep the removed module imported."""
        params = function.params
        found = set()
        removed = (*CLIENT_MODULES, *XLA_TYPE_MODULES, *XLA_MODULES)
        annotations = [(param.name.value, param.annotation.annotation)
                       for param in [*params.posonly_params, *params.params, *params.kwonly_params, params.star_arg]
                       if isinstance(param, cst.Param) and param.annotation is not None]
        if function.returns is not None:
            annotations.append((RETURNS, function.returns.annotation))
        for name, annotation in annotations:
            # ``xla.XlaOp``, ``Sequence[xla.XlaOp]``, ``xla.TranslationContext``: jax removed them
            # all, and evaluated (no ``from __future__ import annotations``) they fail at import.
            if self._names_removed_type(annotation, removed):
                found.add(name)
                for node in dotted_names(annotation):
                    head = head_name(node)
                    if head and (self.ctx.qualified_name(node) or "").startswith(tuple(m + "." for m in removed)):
                        drop_binding_if_unused(self.ctx, head)
        return found

    def _signature_edit(self, form: str, ctx_name: str, skip: int = 0):
        xla_typed = self._xla_typed_now

        def edit(updated: cst.CSTNode) -> cst.CSTNode:
            assert isinstance(updated, cst.FunctionDef)
            params = updated.params
            untyped = lambda p: p.with_changes(annotation=None) if isinstance(p, cst.Param) and p.name.value in xla_typed else p  # noqa: E731
            params = params.with_changes(
                posonly_params=[untyped(p) for p in params.posonly_params], params=[untyped(p) for p in params.params],
                kwonly_params=[untyped(p) for p in params.kwonly_params], star_arg=untyped(params.star_arg))
            if params.posonly_params:
                merged = list(params.posonly_params) + list(params.params)
                params = params.with_changes(posonly_params=(), posonly_ind=cst.MaybeSentinel.DEFAULT, params=merged)
            plist = list(params.params)
            if form == "ctx":
                del plist[skip + 1:skip + 3]
            else:
                plist[skip] = plist[skip].with_changes(name=cst.Name(ctx_name))
            was_last = params.params[-1].name.value if params.params else None
            if plist and params.star_arg is cst.MaybeSentinel.DEFAULT and not params.kwonly_params and params.star_kwarg is None \
                    and plist[-1].name.value != was_last:
                # The last parameter went: the one now last must not leave ``(ctx, )``. A
                # trailing comma the author wrote after the last parameter stays.
                plist[-1] = plist[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
            if RETURNS in xla_typed:
                updated = updated.with_changes(returns=None)
            return updated.with_changes(params=params.with_changes(params=plist))

        return edit

    def _drop_aliases(self, collector: _Collector, consumed_calls: set) -> None:
        """Remove ``xops = xla_client.ops``-style aliases that only rewritten code used, or
        that nothing uses: either way the alias alone would keep the module importing
        xla_client, which fails at import time."""
        exported = "__all__" in self.ctx.module.code
        for assign in collector.assigns:
            if len(assign.targets) != 1 or not isinstance(assign.targets[0].target, cst.Name):
                continue
            if not isinstance(assign.value, cst.Attribute):
                continue
            qual = self.ctx.qualified_name(assign.value) or ""
            module = next((m for m in CLIENT_MODULES if qual.startswith(m + ".")), None)
            if module is None or f"jax.lib.xla_client.{qual[len(module) + 1:]}" in CLIENT_REPLACEMENTS:
                continue  # no XlaBuilder API: xla-client-import moves it (FftType -> jax.lax.FftType)
            # A member jaxlib still has (``CompileOptions = xc.CompileOptions`` in jax's own
            # compiler.py) may be read from outside: its alias goes only with the rules it served.
            member = qual[len(module) + 1:]
            kept_member = module in STILL_IMPORTABLE and first_missing(qual) is None and (
                "." not in member
                # A Shape factory jaxlib still has, in a module that builds no XlaBuilder program.
                or (self._builder_free and member in {f"Shape.{f}" for f in SHAPE_FACTORIES}))
            name = assign.targets[0].target
            scope = self.ctx.scopes.get(name)
            if scope is None or scope is not self.ctx.scopes.get(self.ctx.module):
                continue
            accesses = [ref.node for assignment in scope.assignments[name.value] for ref in assignment.references]
            if accesses and not all(self._inside_consumed(a) for a in accesses):
                if jax_fallback_guard(self.ctx, assign) is None and not kept_member:
                    self.report(assign, Safety.MANUAL, f"alias `{name.value}` of `{qual}` (removed with the XlaBuilder: "
                                "xla_client.ops in jax 0.6.0, jax.lib.xla_client in 0.9.0) is kept for the code that uses it; "
                                "it goes once that code is migrated")
                continue
            if not accesses and (kept_member or len(scope.assignments[name.value]) != 1 or jax_fallback_guard(self.ctx, assign) is not None
                                 or (exported and re.search(rf"[\'\"]{re.escape(name.value)}[\'\"]", self.ctx.module.code))):
                continue
            stmt = self.ctx.parents.get(assign)
            if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1:
                head = head_name(assign.value)
                if head:
                    drop_binding_if_unused(self.ctx, head)
                why = "was only used by rewritten translation rules" if accesses else "is not used"
                self.report(stmt, Safety.SAFE, f"alias `{name.value}` of a removed xla_client API {why}", lambda _n: cst.RemoveFromParent())

    def _inside_consumed(self, node: cst.CSTNode) -> bool:
        return any(n in self._consumed_all or n in self._removed_helpers or n in self._passthrough_calls
                   for n in (node, *ancestors(self.ctx, node)))

    @property
    def _consumed_all(self) -> set:
        found = set()
        for finding in self.ctx.findings:
            if finding.change.rule == self.name and finding.change.safety is not Safety.MANUAL and isinstance(finding.node, cst.Call):
                found.add(finding.node)
        return found

    # -- spelling ----------------------------------------------------------------
    def _name(self, module: str, local: str) -> str:
        """Spell ``module`` (bound as ``local`` when nothing binds it yet)."""
        existing = self.ctx.names.binding_for(module)
        if existing is not None:
            return existing
        parent, _, obj = module.rpartition(".")
        if not self.ctx.names.is_bound(local):
            self.ctx.add_import(parent, obj, None if obj == local else local)
            return local
        return self.ctx.name_for(module + ".__x__")[: -len(".__x__")]

    def _module(self, module: str, local: str) -> str:
        """Spell ``module`` through a binding of the module itself (``import jax`` alone
        does not load ``jax.extend.mlir``), else import it as ``local``."""
        found = self.ctx.names.binding_and_prefix(module)
        if found is not None and found[1] == module:
            return found[0]
        parent, _, obj = module.rpartition(".")
        if not self.ctx.names.is_bound(local):
            self.ctx.add_import(parent, obj, None if obj == local else local)
            return local
        return self.ctx.name_for(module + ".__x__")[: -len(".__x__")]

    def _shaped_array(self) -> str:
        return self.ctx.names.binding_for("jax.core.ShapedArray") or self._name("jax.core", "core") + ".ShapedArray"

    def _mlir(self, function: str) -> str:
        return self._name("jax.interpreters.mlir", "mlir") + "." + function

    def _numpy(self) -> str:
        existing = self.ctx.names.binding_for("numpy")
        if existing is not None:
            return existing
        if not self.ctx.names.is_bound("np"):
            self.ctx.add_import("numpy", asname="np")
            return "np"
        return self.ctx.name_for("numpy.__x__")[: -len(".__x__")]


_BUILTIN_NAMES = frozenset({"int", "float", "bool", "complex", "len", "tuple", "list"})
_CLIENT_IMPORTS = {("jax.lib", "xla_client"), ("jaxlib", "xla_client"), ("jax._src.lib", "xla_client")}


def _foreign_constant_helper(path: str, name: str, stamp: int):
    """``(function, builder param, value param, returned value, numpy names)`` when the
    module at ``path`` defines ``def name(c, v): return xla_client.ops.Constant(c, <value>)``
    at module level (a docstring allowed), with xla_client and numpy imported plainly."""
    read = _foreign_module(path, stamp)
    if read is None:
        return None
    functions, clients, numpy_names, ops_aliases = read
    function = functions.get(name)
    if function is None or not clients:
        return None
    constants = {f"{client}.ops.{constant}" for client in clients for constant in CONSTANTS}
    constants |= {f"{alias}.{constant}" for alias in ops_aliases for constant in CONSTANTS}
    parts = _constant_helper_parts(function, lambda func: (get_full_name_for_node(func) or "") in constants)
    if parts is None:
        return None
    builder, value, made = parts
    names = _read_names(made.args[1].value)
    return function, builder, value, made.args[1].value, frozenset(numpy_names & names)


@lru_cache(maxsize=64)
def _foreign_module(path: str, stamp: int):
    """The module at ``path`` (as of ``stamp``), parsed once for all the helpers looked up
    in it: its module-level functions by name, the local names of its plain imports of
    xla_client and of numpy, and the names it binds once to ``xla_client.ops``
    (mpi4jax's ``_ops = xla_client.ops``)."""
    try:
        with open(path, "rb") as fh:
            source = fh.read()
        python_tree(source)  # nesting Python refuses would crash LibCST's parser
        module = cst.parse_module(source)
    except (OSError, cst.ParserSyntaxError, NestingTooDeep, RecursionError):
        return None
    functions: dict[str, cst.FunctionDef] = {}
    clients: set[str] = set()
    numpy_names: set[str] = set()
    assigned: list[str] = []
    for stmt in module.body:
        if isinstance(stmt, cst.FunctionDef):
            functions[stmt.name.value] = stmt
        if not isinstance(stmt, cst.SimpleStatementLine):
            continue
        for small in stmt.body:
            if isinstance(small, cst.ImportFrom) and not small.relative and not isinstance(small.names, cst.ImportStar):
                source = get_full_name_for_node(small.module) or ""
                for alias in small.names:
                    if (source, get_full_name_for_node(alias.name)) in _CLIENT_IMPORTS:
                        clients.add(get_full_name_for_node(alias.asname.name) if alias.asname else "xla_client")
            elif isinstance(small, cst.Import):
                for alias in small.names:
                    if get_full_name_for_node(alias.name) == "numpy":
                        numpy_names.add(get_full_name_for_node(alias.asname.name) if alias.asname else "numpy")
            elif isinstance(small, cst.Assign) and len(small.targets) == 1 and isinstance(small.targets[0].target, cst.Name) \
                    and (get_full_name_for_node(small.value) or "") in {f"{client}.ops" for client in clients}:
                assigned.append(small.targets[0].target.value)
    once = {n for n in assigned if assigned.count(n) == 1 and n not in functions}
    return functions, frozenset(clients), frozenset(numpy_names), frozenset(once)


def _constant_helper_parts(function: cst.FunctionDef, is_constant) -> Optional[tuple[str, str, cst.Call]]:
    """``(builder param, value param, the returned call)`` of ``def f(c, v): return
    ops.Constant(c, <value>)`` (a docstring allowed), ``is_constant`` telling the callee."""
    if function.decorators or not isinstance(function.body, cst.IndentedBlock):
        return None
    params = function.params
    if (params.posonly_params or params.kwonly_params or not isinstance(params.star_arg, cst.MaybeSentinel)
            or params.star_kwarg is not None or len(params.params) != 2 or any(p.default for p in params.params)):
        return None
    builder, value = (p.name.value for p in params.params)
    body = [stmt for stmt in function.body.body if not (
        isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 and isinstance(stmt.body[0], cst.Expr)
        and isinstance(stmt.body[0].value, (cst.SimpleString, cst.ConcatenatedString)))]
    if len(body) != 1 or not isinstance(body[0], cst.SimpleStatementLine) or len(body[0].body) != 1:
        return None
    ret = body[0].body[0]
    if not isinstance(ret, cst.Return) or not isinstance(ret.value, cst.Call):
        return None
    made = ret.value
    if not is_constant(made.func) or len(made.args) != 2 or any(a.keyword or a.star for a in made.args):
        return None
    if not (isinstance(made.args[0].value, cst.Name) and made.args[0].value.value == builder):
        return None
    return builder, value, made


def _read_names(expr: cst.BaseExpression) -> set[str]:
    """The variables ``expr`` reads (``np`` in ``np.intc(v)``, not ``intc``; no keywords)."""
    found: set[str] = set()

    class _Reads(cst.CSTVisitor):
        def visit_Attribute(self, node: cst.Attribute) -> bool:
            node.value.visit(self)
            return False

        def visit_Arg(self, node: cst.Arg) -> bool:
            node.value.visit(self)
            return False

        def visit_Name(self, node: cst.Name) -> None:
            found.add(node.value)

    expr.visit(_Reads())
    return found


class _FunctionScan(cst.CSTVisitor):
    """Everything one rule function does with the builder, shapes and constants."""

    def __init__(self, rule: XlaTranslationRule, function: cst.FunctionDef, form: str, first: str, avals: tuple,
                 operand_params: list[str]) -> None:
        super().__init__()
        self.operand_params = operand_params
        self._function = function
        self._static: Optional[set[str]] = None
        self.body = list(function.body.body) if isinstance(function.body, cst.IndentedBlock) else []
        #: name -> [(top-level statement index, kind, at top level)] for each ``name = value``
        #: in the body; kind: array, tuple, aval, constant, shapes, result, other.
        self.bindings: dict[str, list[tuple[int, str, bool]]] = {}
        #: name -> the values of its ``name = value`` bindings.
        self.values: dict[str, list[cst.BaseExpression]] = {}
        #: Names also bound other than by ``name = value`` (loops, augmented or tuple targets).
        self.rebound: set[str] = set()
        #: Custom calls whose results an MLIR lowering rule returns as its list of results:
        #: ``[op]`` of a translation rule, or ``r = op`` returned as ``[r]``.
        self.wrapped: set[cst.Call] = set()
        #: ``[r]`` in ``return [r]`` (r bound to a custom call): becomes ``r``.
        self.unwraps: list[cst.CSTNode] = []
        #: Uses of names bound to custom-call results: name -> [Name]
        self.result_uses: dict[str, list[cst.Name]] = {}
        #: Constants bound to a name: the Name uses, which become ``mlir.ir_constant(name)``.
        self.constant_uses: list[cst.Name] = []
        self.result_calls: dict[str, list[tuple[cst.Call, Optional[cst.CSTNode]]]] = {}
        #: ``helper(c, x)`` operands whose helper only returns ``ops.Constant(c, expr)``:
        #: call -> (helper, value code).
        self.helper_constants: dict[cst.Call, tuple[cst.FunctionDef, str]] = {}
        #: ``return ops.Tuple(c, [x, token])``: the operands handed back as the results.
        self.tuple_returns: list[cst.Call] = []
        #: Calls of a row-major shape helper, and the assignments binding its shapes.
        self.rowmajor_calls: dict[cst.Call, cst.FunctionDef] = {}
        self.rowmajor_assigns: list[cst.Assign] = []
        #: ``Shape.array_shape(*arg)`` in ``[... for arg in zip(dtypes, shapes, layouts)]``,
        #: ``layouts`` the row-major layouts of ``shapes`` (numba bridges).
        self.rowmajor_zips: set[cst.Call] = set()
        #: ``helper(shape)`` of an operand's builder shape, ``helper`` returning
        #: ``ShapedArray(s.dimensions(), s.element_type())``: become that aval.
        self.aval_helper_calls: list[cst.Call] = []
        #: ``(c.get_shape(a).dimensions() for a in operands)``: (get_shape call, method
        #: call, comprehension); the loop runs over the avals instead.
        self.star_shape_methods: list[tuple[cst.Call, cst.Call, cst.BaseExpression]] = []
        #: ``n = helper(c, v)``: the helper's NumPy value bound to the name instead.
        self.named_helper_constants: dict[cst.Call, tuple[cst.FunctionDef, str]] = {}
        self.helper_avals: dict[cst.Call, str] = {}
        self.get_shapes: list[tuple[cst.Call, int]] = []
        self.shape_methods: list[cst.Call] = []
        self.default_layouts: list[cst.CSTNode] = []
        self.rule = rule
        self.ctx = rule.ctx
        self.form = form
        self.first = first
        self.avals = avals
        self.builder_names = {first} if form == "builder" else set()
        self.star = function.params.star_arg.name.value if isinstance(function.params.star_arg, cst.Param) else None
        self.custom_calls: dict[cst.Call, Optional[cst.CSTNode]] = {}
        self.constants: list[cst.Call] = []
        #: Constants built by a builder method (``c.ConstantS32Scalar(v)``): call -> method.
        self.constant_methods: dict[cst.Call, str] = {}
        self.shape_calls: list[tuple[cst.Call, str]] = []
        self.constant_vars: dict[str, cst.BaseExpression] = {}
        self.builder_aliases: list[cst.CSTNode] = []
        #: ``c = _unpack_builder(c)`` assignments: builder aliases, not rebindings.
        self.unpacked: set = set()
        #: ``_unpack_builder(c)`` calls -> the helper.
        self.unpackers: dict = {}
        #: Why ``c = helper(c)`` could not be read as an unwrapping of the builder: the
        #: helper is imported from a project module that is not in reach.
        self.unread_unpacker: Optional[str] = None
        self.aval_names: list[cst.Name] = []
        #: ``list(map(c.get_shape, operands))`` / ``[c.get_shape(x) for x in operands]`` of the
        #: rule's ``*operands``: become the list of their avals.
        self.aval_lists: list[cst.BaseExpression] = []
        #: ``Shape.tuple_shape([Shape.token_shape()])``: a custom call's one-token tuple result.
        self.token_tuples: set[cst.Call] = set()
        #: Those a converted custom call returns (and ``GetTupleElement`` unpacks): any
        #: other one-token tuple (bound where the scan cannot follow it) keeps the rule manual.
        self.token_tuples_used: set[cst.CSTNode] = set()
        #: ``Shape.token_shape()`` among other results of a tuple_shape: its layout is ``()``.
        self.token_layouts: list[cst.Call] = []
        #: ``return ops.GetTupleElement(r, 0)``, ``r`` a custom call's one-token tuple.
        self.tuple_gets: list[cst.Call] = []
        self.allowed: set = set()
        self.names_seen: set[str] = set()
        self.problem: Optional[str] = None
        self._prepare(function)

    def _prepare(self, function: cst.FunctionDef) -> None:
        # Builder aliases first: ``c.get_shape(x)`` bindings are recognised through them.
        for index, stmt in enumerate(self.body):
            if not isinstance(stmt, cst.SimpleStatementLine) or len(stmt.body) != 1:
                continue
            small = stmt.body[0]
            if not isinstance(small, cst.Assign) or len(small.targets) != 1 or not isinstance(small.targets[0].target, cst.Name):
                continue
            name = small.targets[0].target.value
            value = small.value
            if self.form == "ctx" and isinstance(value, cst.Attribute) and value.attr.value == "builder" and isinstance(value.value, cst.Name) and value.value.value == self.first:
                self.builder_names.add(name)
                self.builder_aliases.append(stmt)
                self.allowed.add(small.targets[0].target)
                self.allowed.add(value)
            elif self._unpacks_builder(value):
                # ``c = _unpack_builder(c)``: old jax's ComputationBuilder wrapped the
                # XlaBuilder; the lowering context replaces both.
                self.builder_names.add(name)
                self.builder_aliases.append(stmt)
                self.unpacked.add(small)
                self.allowed.add(small.targets[0].target)
                self.allowed.add(value.args[0].value)
        walk.read(function.body, _BoundNames(self))
        for name, kinds in self.bindings.items():
            if name in self.rebound:
                continue
            if {kind for _, kind, _ in kinds} == {"constant"}:
                self.constant_vars[name] = self.values[name]
            elif (all(top for _, _, top in kinds) and [kind for _, kind, _ in kinds].count("constant") == 1
                  and max(kinds, key=lambda k: k[0])[1] == "constant"
                  and len({index for index, _, _ in kinds}) == len(kinds)):
                # ``dims = aval.shape`` ... ``dims = ops.ConstantLiteral(c, ...)``: the name is
                # reused for the constant, in the rule's own statements; every read after that
                # statement is the constant's (``reaching`` tells the earlier reads apart).
                self.constant_vars[name] = self.values[name]

    def _unpacks_builder(self, value: cst.BaseExpression) -> bool:
        """``helper(c)`` for a module helper returning ``getattr(c, "_builder", c)``."""
        if not (isinstance(value, cst.Call) and isinstance(value.func, cst.Name) and len(value.args) == 1
                and not value.args[0].keyword and not value.args[0].star):
            return False
        arg = value.args[0].value
        if not ((isinstance(arg, cst.Name) and arg.value in self.builder_names) or self._is_ctx_builder(arg)):
            return False
        helper, _ = self.rule._rule_function(value.func, value, self.rule.collector)
        if helper is None:
            helper = self.rule.project_function(value.func)  # mpi4jax's, from its utils module
        if helper is None:
            self.unread_unpacker = self.rule.unread_helper(value.func, self.first)
        call = _sole_return_call(helper) if helper is not None and not helper.decorators else None
        params = helper.params.params if helper is not None else ()
        if call is None or len(params) != 1 or helper.params.star_arg is not cst.MaybeSentinel.DEFAULT or helper.params.kwonly_params:
            return False
        param = params[0].name.value
        args = call.args
        found = (isinstance(call.func, cst.Name) and call.func.value == "getattr" and len(args) == 3
                and all(a.keyword is None and not a.star for a in args)
                and isinstance(args[0].value, cst.Name) and args[0].value.value == param
                and literal_bytes_as_str(args[1].value) is None and isinstance(args[1].value, cst.SimpleString)
                and args[1].value.evaluated_value == "_builder"
                and isinstance(args[2].value, cst.Name) and args[2].value.value == param)
        if found:
            self.unpackers[value] = helper
        return found

    def bind(self, node: cst.Assign) -> None:
        if node in self.unpacked:
            return
        name = node.targets[0].target.value
        index = self._top_index(node)
        top = any(
            isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 and stmt.body[0] is node
            for stmt in self.body
        )
        kind = self._kind_of(node.value)
        if kind == "avals":
            self.aval_lists.append(node.value)
        if kind in ROW_MAJOR_KINDS:
            self.rowmajor_assigns.append(node)
        self.bindings.setdefault(name, []).append((index, kind, top))
        self.values.setdefault(name, []).append(node.value)

    def _star_shapes(self, value: cst.BaseExpression) -> Optional[cst.Name]:
        """The builder in ``list(map(c.get_shape, operands))`` or ``[c.get_shape(x) for x in
        operands]`` (``operands`` the rule's ``*operands``): the operands' shapes in order."""
        if self.star is None or self.star in self.bindings or self.star in self.rebound:
            return None
        if isinstance(value, cst.Call) and get_full_name_for_node(value.func) == "list" and len(value.args) == 1 \
                and not value.args[0].keyword and not value.args[0].star and "list" not in self.bindings:
            inner = value.args[0].value
            if isinstance(inner, cst.Call) and get_full_name_for_node(inner.func) == "map" and "map" not in self.bindings \
                    and len(inner.args) == 2 and all(not a.keyword and not a.star for a in inner.args):
                func, source = inner.args[0].value, inner.args[1].value
                if isinstance(source, cst.Name) and source.value == self.star and isinstance(func, cst.Attribute) \
                        and func.attr.value in GET_SHAPE and isinstance(func.value, cst.Name) and func.value.value in self.builder_names:
                    return func.value
            return None
        wrapped = _sequence_call(value, self.bindings)
        if wrapped and isinstance(wrapped[0], (cst.GeneratorExp, cst.ListComp)):
            value = wrapped[0]  # ``tuple(c.get_shape(a) for a in args)`` (celerite2)
        if isinstance(value, (cst.ListComp, cst.GeneratorExp)) and isinstance(value.elt, cst.Call) \
                and self._operand_shape_in_comprehension(value.elt):
            loop = value.for_in
            if isinstance(loop.iter, cst.Name) and loop.iter.value == self.star:
                return value.elt.func.value
        return None

    def _kind_of(self, value: cst.BaseExpression) -> str:
        builder = self._star_shapes(value)
        if builder is not None:
            self.allowed.add(builder)
            return "avals"
        if isinstance(value, cst.Call) and (helper := self.rule.row_major_helper(value.func)) is not None:
            self.rowmajor_calls[value] = helper
            return "rowmajor_seq"
        if self._rowmajor_zip(value):
            return "rowmajor_seq"
        if isinstance(value, cst.Call) and self._rowmajor_tuple(value):
            return "rowmajor"  # Shape.tuple_shape(shapes) of a helper's row-major shapes
        if isinstance(value, cst.Subscript) and isinstance(value.value, cst.Name) and self._bound_to(value.value.value, "rowmajor_seq"):
            return "rowmajor"  # shapes[0]
        if isinstance(value, cst.Name) and value.value != self.first:
            # ``out_shape = in_shape``: another name for the same XLA shape.
            kinds = {kind for _, kind, _ in self.bindings.get(value.value, [])}
            if len(kinds) == 1 and kinds & {"array", "tuple"} and value.value not in self.rebound:
                return kinds.pop()
        if self._replicated_shape(value):
            return "shapes"
        if isinstance(value, cst.Call):
            shape = self.rule._client_attr(value.func, "Shape")
            if shape == "array_shape":
                return "array"
            if shape == "tuple_shape":
                return "tuple"
            if self._get_shape_index(value) is not None:
                return "aval"
            if self.rule._client_attr(value.func, "ops") in CONSTANTS or self.constant_method(value) is not None:
                return "constant"
            if self.custom_call_kind(value) is not None:
                return "result"
            if self._named_helper_constant(value):
                return "constant"
        if isinstance(value, (cst.List, cst.Tuple)):
            elements = [e.value for e in value.elements]
            if len(elements) == 1 and self.custom_call_kind(elements[0]) is not None:
                return "result"
            if elements and all(isinstance(e, cst.Element) for e in value.elements) and all(
                isinstance(e, cst.Call) and self._get_shape_index(e) is not None for e in elements
            ):
                # ``shapes = (c.get_shape(a), c.get_shape(b))``: each element becomes its aval.
                return "aval_display"
            if elements and not any(isinstance(e, cst.StarredElement) for e in value.elements) and all(
                isinstance(e, cst.Call) and self.rule._client_attr(e.func, "Shape") == "array_shape" for e in elements
            ):
                return "shapes"
        if isinstance(value, (cst.ListComp, cst.GeneratorExp)) and isinstance(value.elt, cst.Call) and (
            self.rule._client_attr(value.elt.func, "Shape") == "array_shape"
        ):
            return "shapes"
        if isinstance(value, cst.BinaryOperation) and isinstance(value.operator, cst.Add) and (
            self._kind_of(value.left) == "shapes" and self._kind_of(value.right) == "shapes"
        ):
            # ``(s1,) + tuple(array_shape(...) for x in xs)``: one sequence of shapes.
            return "shapes"
        wrapped = _sequence_call(value, self.bindings)
        if wrapped and isinstance(wrapped[0], (cst.ListComp, cst.GeneratorExp)) and self._kind_of(wrapped[0]) == "shapes":
            return "shapes"
        return "other"

    def _replicated_shape(self, value: cst.BaseExpression) -> bool:
        """``tuple(s for _ in xs)`` / ``[s for _ in xs]`` with ``s`` one XLA array shape:
        the same layout once per element of ``xs`` (a variadic tail of operands)."""
        wrapped = _sequence_call(value, self.bindings)
        if wrapped:
            value = wrapped[0]
        if not isinstance(value, (cst.GeneratorExp, cst.ListComp)) or not isinstance(value.elt, cst.Name):
            return False
        comp = value.for_in
        if comp.inner_for_in is not None or comp.ifs or comp.asynchronous is not None or value.elt.value in _names_in(comp.target):
            return False
        kinds = {kind for _, kind, _ in self.bindings.get(value.elt.value, [])}
        return kinds == {"array"} and value.elt.value not in self.rebound

    def _feeds_shapes(self, node: cst.Name) -> bool:
        """``node`` is what a replicated-shape tuple or a shape alias is built from."""
        parent = self.ctx.parents.get(node)
        if isinstance(parent, cst.Assign) and parent.value is node:
            return True
        if isinstance(parent, (cst.GeneratorExp, cst.ListComp)) and parent.elt is node:
            holder = self.ctx.parents.get(parent)
            if isinstance(holder, cst.Arg):
                holder = self.ctx.parents.get(holder)
            assign = self.ctx.parents.get(holder)
            return isinstance(assign, cst.Assign) and self._replicated_shape(assign.value)
        return False

    def _builder_shape_of_name(self, call: cst.Call) -> bool:
        """``c.get_shape(x)`` on the rule's builder, ``x`` a plain name."""
        func = call.func
        return (isinstance(func, cst.Attribute) and func.attr.value in GET_SHAPE and isinstance(func.value, cst.Name)
                and func.value.value in self.builder_names and len(call.args) == 1 and not call.args[0].keyword
                and not call.args[0].star and isinstance(call.args[0].value, cst.Name))

    def _operand_shape_in_comprehension(self, call: cst.Call) -> bool:
        """``c.get_shape(x)`` as the element of ``[... for x in operands]``, where
        ``operands`` is the rule's ``*operands`` or a tuple of its operand parameters."""
        if not self._builder_shape_of_name(call):
            return False
        comp = self.ctx.parents.get(call)
        if not isinstance(comp, (cst.ListComp, cst.GeneratorExp)) or comp.elt is not call:
            return False
        source = _plain_loop_over(comp.for_in, call.args[0].value.value)
        if source is None:
            return False
        values = self.values.get(source, [])
        if source in self.rebound or source in self.operand_params:
            return False
        if not values:
            return source == self.star
        return len(values) == 1 and isinstance(values[0], (cst.Tuple, cst.List)) and all(
            isinstance(e, cst.Element) and not isinstance(e, cst.StarredElement) and isinstance(e.value, cst.Name)
            and e.value.value in self.operand_params and e.value.value not in self.bindings for e in values[0].elements)

    def _get_shape_index(self, call: cst.Call) -> Optional[int]:
        """``c.get_shape(x)`` for operand ``x``: its index among the operands."""
        func = call.func
        if not (isinstance(func, cst.Attribute) and func.attr.value in GET_SHAPE and (
                (isinstance(func.value, cst.Name) and func.value.value in self.builder_names)
                or self._is_ctx_builder(func.value))):
            return None
        args = positional(call)
        if len(args) == 1 and len(call.args) == 1 and isinstance(args[0].value, cst.Name) and args[0].value.value in self.operand_params:
            return self.operand_params.index(args[0].value.value)
        if len(args) == 1 and len(call.args) == 1 and (index := self._star_element(args[0].value)) is not None:
            return len(self.operand_params) + index  # ``c.get_shape(args[0])`` of ``*args``
        return None

    def _star_element(self, node: cst.BaseExpression) -> Optional[int]:
        """``i`` for ``operands[i]`` (a literal ``i`` >= 0), ``operands`` the rule's ``*operands``."""
        if not (self.star is not None and isinstance(node, cst.Subscript) and isinstance(node.value, cst.Name)
                and node.value.value == self.star and self.star not in self.bindings and self.star not in self.rebound
                and len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Index)
                and isinstance(node.slice[0].slice.value, cst.Integer)):
            return None
        return int(node.slice[0].slice.value.value)

    def _star_shape_method(self, call: cst.Call) -> Optional[tuple[cst.Call, cst.BaseExpression]]:
        """``(method call, comprehension)`` for ``c.get_shape(a)`` in ``(c.get_shape(a).dimensions()
        for a in operands)`` (or ``.element_type()``), ``operands`` the rule's ``*operands``:
        celerite2's dimensions of every operand, handed to its spec."""
        if not self._builder_shape_of_name(call):
            return None
        method = self.ctx.parents.get(call)
        method_call = self.ctx.parents.get(method)
        if not (isinstance(method, cst.Attribute) and method.value is call and method.attr.value in SHAPE_METHODS
                and isinstance(method_call, cst.Call) and method_call.func is method and not method_call.args):
            return None
        comp = self.ctx.parents.get(method_call)
        if not isinstance(comp, (cst.ListComp, cst.GeneratorExp)) or comp.elt is not method_call:
            return None
        over = _plain_loop_over(comp.for_in, call.args[0].value.value)
        if over is None or over != self.star or self.star in self.bindings or self.star in self.rebound:
            return None
        return method_call, comp

    def _top_index(self, node: cst.CSTNode) -> int:
        current, child = node, node
        while current is not None and not isinstance(current, cst.FunctionDef):
            child, current = current, self.ctx.parents.get(current)
        for index, stmt in enumerate(self.body):
            if stmt is child or _contains(stmt, node, self.ctx):
                return index
        return len(self.body)

    def reaching(self, name: str, node: cst.CSTNode) -> Optional[str]:
        """Kind of the binding of ``name`` that reaches ``node`` (``ambiguous`` if unknown)."""
        bindings = self.bindings.get(name)
        if not bindings:
            return None
        kinds = {kind for _, kind, _ in bindings}
        if name in self.rebound:
            kinds.add("other")
        if len(kinds) == 1:
            return kinds.pop()
        last = self._last_binding_before(name, node)
        return bindings[last][1] if last is not None else "ambiguous"

    def reaching_value(self, name: str, node: cst.CSTNode) -> Optional[cst.BaseExpression]:
        """The value of the binding of ``name`` that reaches ``node``: the one binding, or of
        several in the rule's own statements the last before ``node``'s (``shapes = [...]``
        then ``shapes = Shape.tuple_shape(shapes)``); None when that is not known."""
        values = self.values.get(name, [])
        if len(values) == 1 and name not in self.rebound:
            return values[0]
        last = self._last_binding_before(name, node) if values else None
        return values[last] if last is not None else None

    def _last_binding_before(self, name: str, node: cst.CSTNode) -> Optional[int]:
        """Which of ``name``'s bindings reaches ``node``, by statement order: that decides
        only between bindings that always run (the rule's own statements, never rebound
        otherwise); None when it does not decide."""
        bindings = self.bindings[name]
        if name in self.rebound or not all(top for _, _, top in bindings):
            return None
        use = self._top_index(node)
        before = [position for position, (index, _, _) in enumerate(bindings) if index < use]
        return before[-1] if before else None

    def shape_kind(self, node: cst.BaseExpression, at: cst.CSTNode) -> Optional[str]:
        if isinstance(node, cst.Name):
            kind = self.reaching(node.value, at)
            return {"array": "array_shape", "tuple": "tuple_shape", "aval": "array_shape"}.get(kind or "")
        if isinstance(node, cst.Subscript) and isinstance(node.value, cst.Name) and self.reaching(node.value.value, at) == "shapes":
            return "array_shape"
        if isinstance(node, cst.Call):
            kind = self.rule._client_attr(node.func, "Shape")
            if kind in ("array_shape", "tuple_shape") or (kind == "token_shape" and node in self.token_layouts):
                return kind
            if self._get_shape_index(node) is not None:
                return "array_shape"
        return None

    def shapes_known(self, node: cst.BaseExpression, at: cst.CSTNode) -> bool:
        """Whether ``node``, a sequence of XLA shapes, is built where the rewrite turns
        each one into its layout (anything else would reach ffi_lowering unchanged)."""
        if isinstance(node, cst.Name):
            return self.reaching(node.value, at) == "shapes"
        wrapped = _sequence_call(node, self.bindings)
        if wrapped is not None:
            # ``tuple()``: no operands, no layouts; ``tuple(shapes)``: those shapes.
            return not wrapped or self.shapes_known(wrapped[0], at)
        if isinstance(node, (cst.ListComp, cst.GeneratorExp)):
            if (isinstance(node.elt, cst.Name) and node.for_in.inner_for_in is None and not node.for_in.ifs
                    and node.elt.value not in _names_in(node.for_in.target)
                    and self.reaching(node.elt.value, at) == "array"):
                return True  # ``tuple(shape for _ in args)``: one shape, its layout, per operand
            return isinstance(node.elt, cst.Call) and (self.rule._client_attr(node.elt.func, "Shape") == "array_shape"
                                                       or self._operand_shape_in_comprehension(node.elt))
        if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Add):
            # ``(s1, s2) + rest``: XlaBuilder took the concatenated sequence.
            return self.shapes_known(node.left, at) and self.shapes_known(node.right, at)
        if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Multiply):
            # ``(s,) * 4``: the same shapes repeated, each turned into its layout in place.
            shapes, count = (node.left, node.right) if isinstance(node.left, (cst.Tuple, cst.List)) else (node.right, node.left)
            return isinstance(shapes, (cst.Tuple, cst.List)) and isinstance(count, (cst.Integer, cst.Name)) \
                and self.shapes_known(shapes, at)
        if not isinstance(node, (cst.Tuple, cst.List)):
            return False
        for element in node.elements:
            if isinstance(element, cst.StarredElement):
                if not self.shapes_known(element.value, at):
                    return False
            elif self.shape_kind(element.value, at) is None:
                return False
        return True

    def constant_value(self, node: cst.BaseExpression) -> Optional[cst.BaseExpression]:
        """The value ``v`` of an inline ``ops.ConstantLiteral(c, v)`` operand (``np.int32(v)``
        for the older builder's ``c.ConstantS32Scalar(v)``)."""
        if isinstance(node, cst.Call) and self.rule._client_attr(node.func, "ops") in CONSTANTS:
            args = [a for a in node.args if a.keyword is None]
            if len(args) == 2:
                return args[1].value
        method = self.constant_method(node)
        if method is not None and len(node.args) == 1 and node.args[0].keyword is None and not node.args[0].star:
            return _builder_constant_value(node.args[0].value, method, self.rule._numpy())
        return None

    def custom_call_kind(self, node: cst.CSTNode) -> Optional[str]:
        """``CustomCall`` / ``CustomCallWithLayout`` for ``ops.CustomCall[WithLayout](c, ...)``;
        METHOD for the older builder's ``c.CustomCall[WithLayout](...)`` on the rule's builder."""
        if not isinstance(node, cst.Call):
            return None
        kind = self.rule._client_attr(node.func, "ops")
        if kind in CUSTOM_CALLS:
            return kind
        return METHOD if self._builder_method(node) in CUSTOM_CALLS else None

    def constant_method(self, node: cst.CSTNode) -> Optional[str]:
        """``ConstantS32Scalar`` for ``c.ConstantS32Scalar(v)`` on the rule's builder."""
        method = self._builder_method(node) if isinstance(node, cst.Call) else None
        return method if method in BUILDER_CONSTANTS else None

    def _builder_method(self, call: cst.Call) -> Optional[str]:
        """``name`` for ``c.name(...)`` where ``c`` is the rule's builder (or ``ctx.builder``)."""
        func = call.func
        if not isinstance(func, cst.Attribute):
            return None
        receiver = func.value
        if (isinstance(receiver, cst.Name) and receiver.value in self.builder_names) or self._is_ctx_builder(receiver):
            return func.attr.value
        return None

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        """A nested function is left as it is when it reads nothing the rewrite changes:
        not the builder, the operands, an XLA shape or aval, a custom call's result, nor
        xla_client (the numba bridges' ``@numba.cfunc`` kernel, built from the shapes'
        plain dimensions and dtypes)."""
        tracked = {self.first, *self.builder_names, *self.operand_params, *self.avals}
        if self.star is not None:
            tracked.add(self.star)
        tracked.update(name for name, bound in self.bindings.items() if any(kind != "other" for _, kind, _ in bound))
        params = node.params
        own = {p.name.value for p in [*params.posonly_params, *params.params, *params.kwonly_params,
                                       params.star_arg, params.star_kwarg] if isinstance(p, cst.Param)}
        own.update(_assigned_names(node.body))
        read = walk.names_in(node) - own
        client = any(self.rule._client_attr(call.func, part) is not None
                     for call in _calls_in(node) for part in ("ops", "Shape"))
        if read & tracked or client or read & (set(self.rule._client_heads) | set(self.rule._alias_heads)):
            self.problem = self.problem or "it defines a nested function"
        return False

    def visit_Call(self, node: cst.Call) -> None:
        ops = self.rule._client_attr(node.func, "ops")
        shape = self.rule._client_attr(node.func, "Shape")
        kind = self.custom_call_kind(node)
        method = self.constant_method(node)
        if kind == METHOD:
            self.allowed.add(node.func.value)
            self.custom_calls[node] = self._container(node)
        elif kind is not None:
            self._allow_builder_arg(node)
            self.custom_calls[node] = self._container(node)
            self.allowed.add(node.func)
        elif method is not None:
            if len(node.args) != 1 or node.args[0].keyword is not None or node.args[0].star:
                self.problem = self.problem or f"an unusual c.{method}"
            self.allowed.add(node.func.value)
            self.constants.append(node)
            self.constant_methods[node] = method
        elif ops in CONSTANTS:
            if len([a for a in node.args if a.keyword is None]) != 2 or len(node.args) != 2:
                self.problem = self.problem or f"an unusual ops.{ops}"
            elif (traced := _read_names(node.args[1].value) & (set(self.operand_params) - self._static_params())):
                # ``ops.ConstantLiteral(c, size)`` of an operand: an XlaOp was never a
                # constant's value (the call failed), and an MLIR value is none either.
                self.problem = self.problem or (
                    f"ops.{ops} is given the operand `{sorted(traced)[0]}`, an XLA value, not a Python or NumPy one")
            self._allow_builder_arg(node)
            self.constants.append(node)
            self.allowed.add(node.func)
        elif shape == "tuple_shape" and self._rowmajor_tuple(node):
            self.allowed.add(node.func)
        elif isinstance(node.func, (cst.Name, cst.Attribute)) and (helper := self.rule.row_major_helper(node.func)) is not None:
            self.rowmajor_calls[node] = helper
        elif node in self.rowmajor_zips:
            self.allowed.add(node.func)
        elif shape in ("array_shape", "tuple_shape"):
            args = [a for a in node.args if a.keyword is None]
            if shape == "array_shape" and len(args) not in (2, 3):
                self.problem = self.problem or "an unusual Shape.array_shape"
            elif shape == "array_shape" and (mismatch := _layout_rank_mismatch(self.ctx, node)):
                self.problem = self.problem or mismatch
            if shape == "tuple_shape" and len(args) != 1:
                self.problem = self.problem or "an unusual Shape.tuple_shape"
            elif shape == "tuple_shape" and not self.shapes_known(args[0].value, node) and not self._holds_token(args[0].value):
                code = _snippet(self.ctx, args[0].value)
                self.problem = self.problem or (f"its result shapes `{code}` are not built with Shape.array_shape in the rule, "
                                                "so their layouts are not known here")
            self.shape_calls.append((node, shape))
            self.allowed.add(node.func)
        elif shape == "token_shape" and self._token_in_tuple(node):
            self.allowed.add(node.func)
        elif (
            ops == "GetTupleElement" and isinstance(self.ctx.parents.get(node), cst.Return) and len(node.args) == 2
            and all(a.keyword is None and not a.star for a in node.args) and isinstance(node.args[0].value, cst.Name)
            and isinstance(node.args[1].value, cst.Integer)
        ):
            # Which custom call's tuple it unpacks is checked with that call.
            self.tuple_gets.append(node)
            self.allowed.add(node.func)
        elif ops == "Tuple" and self._operands_handed_back(node):
            # ``return ops.Tuple(c, [x, token])`` (mpi4jax's transpose branch): the lowering
            # rule hands the operands back as its results.
            self.tuple_returns.append(node)
            self.allowed.add(node.func)
            self.allowed.add(node.args[0].value)
        elif shape == "token_shape":
            self.problem = self.problem or TOKEN_PROBLEM
        elif ops is not None or shape is not None:
            self.problem = self.problem or f"it uses xla_client.{'ops' if ops else 'Shape'}.{ops or shape}"
        elif isinstance(node.func, cst.Name) and self._helper_constant(node):
            pass
        elif self._get_shape_index(node) is not None:
            self.allowed.add(node.func.value)
            parent = self.ctx.parents.get(node)
            if self._in_layout_position(node) and not (isinstance(parent, cst.Attribute) and parent.attr.value in SHAPE_METHODS):
                self._shape_as_layout(node)
            else:
                self.get_shapes.append((node, self._get_shape_index(node)))
                if not self._get_shape_followed(node):
                    text = one_line(self.ctx.module.code_for_node(parent if isinstance(parent, cst.CSTNode) else node))
                    self.problem = self.problem or (
                        f"the builder shape `{one_line(self.ctx.module.code_for_node(node))}` goes where its uses cannot be "
                        f"followed (`{text[:60]}`): the aval that replaces it has .shape/.dtype, not .dimensions()/.element_type()")
        elif self._operand_shape_in_comprehension(node) and self._in_layout_position(node):
            # ``tuple([c.get_shape(x) for x in operands])``: each operand's default layout.
            self.allowed.add(node.func.value)
            self.default_layouts.append(node)
        elif (found := self._star_shape_method(node)) is not None:
            self.allowed.add(node.func.value)
            self.star_shape_methods.append((node, *found))
        elif (
            isinstance(node.func, cst.Attribute) and node.func.attr.value in SHAPE_METHODS and not node.args
            and self._is_aval(node.func.value)
        ):
            self.shape_methods.append(node)

    def _shape_as_layout(self, node: cst.BaseExpression) -> None:
        """An operand's builder shape inside a custom call's layouts: the row-major default
        (``None``) when it is a layout as a whole, or the argument of a helper that computes
        the row-major layout from it; anything else computed from it has no aval
        counterpart known here (``None`` would reach that computation instead of a shape)."""
        layout = self._whole_layout(node)
        if layout is not None:
            self.default_layouts.append(layout)
            return
        code = _snippet(self.ctx, self.ctx.parents.get(self.ctx.parents.get(node)) or node)
        self.problem = self.problem or (
            f"the builder shape `{_snippet(self.ctx, node)}` is used inside a layout (`{one_line(code)[:60]}`), "
            "which is computed from it, not the shape's row-major default")

    def _in_array_shape(self, node: cst.CSTNode) -> bool:
        """Inside a ``Shape.array_shape(...)`` of this statement (one bound to a name, say:
        such a shape may only feed layouts)."""
        current = self.ctx.parents.get(node)
        while current is not None and not isinstance(current, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
            if isinstance(current, cst.Call) and self.rule._client_attr(current.func, "Shape") == "array_shape":
                return True
            current = self.ctx.parents.get(current)
        return False

    def _whole_layout(self, node: cst.BaseExpression) -> Optional[cst.BaseExpression]:
        """The layout ``node`` stands for as a whole: ``node`` itself when it is a custom
        call's layout argument (or an element of one, or of a tuple_shape's list, or the
        layout of an array_shape), the call ``f(node)`` when ``f`` returns the row-major
        layout of its argument; None otherwise."""
        current: cst.CSTNode = node
        while True:
            parent = self.ctx.parents.get(current)
            if isinstance(parent, (cst.Element, cst.Tuple, cst.List)) or (
                isinstance(parent, cst.BinaryOperation) and isinstance(parent.operator, cst.Add)
            ):
                current = parent
                continue
            if not isinstance(parent, cst.Arg) or parent.star:
                return None
            call = self.ctx.parents.get(parent)
            if not isinstance(call, cst.Call):
                return None
            if self.custom_call_kind(call) is not None or self.rule._client_attr(call.func, "Shape") == "tuple_shape":
                return node
            if self.rule._client_attr(call.func, "Shape") == "array_shape":
                args = positional(call)
                return node if len(args) == 3 and args[2] is parent else None
            if current is node and len(call.args) == 1 and parent.keyword is None and self._row_major_helper(call.func):
                return self._whole_layout(call)
            return None

    def _row_major_helper(self, func: cst.BaseExpression) -> bool:
        """``f`` bound once (a ``def`` or a lambda) to ``tuple(range(len(s.dimensions()) - 1, -1, -1))``
        (or another spelling ``_row_major_text`` knows) of its one parameter ``s``: the
        row-major layout of the shape it is given."""
        if not isinstance(func, cst.Name) or func.value in self.operand_params or func.value == self.first:
            return False
        value = self.ctx.value_bound_once(func)
        if isinstance(value, cst.Lambda):
            params, body = value.params, value.body
        elif value is None and func.value not in self.bindings:
            defs = self.rule.collector.functions.get(func.value, [])
            if len(defs) != 1 or not isinstance(defs[0][0], cst.FunctionDef):
                return False
            params, body = defs[0][0].params, _sole_return(defs[0][0])
        else:
            return False
        if body is None or len(params.params) != 1 or params.posonly_params or params.kwonly_params or isinstance(params.star_arg, cst.Param) or params.star_kwarg is not None:
            return False
        name = params.params[0].name.value
        return _row_major_text(self.ctx.module.code_for_node(body), f"{name}.dimensions()")

    def _token_in_tuple(self, node: cst.Call) -> bool:
        """``Shape.token_shape()`` as an element of ``Shape.tuple_shape([...])``: the tuple
        is recorded as a one-token tuple, or the token as one result among others."""
        if node.args:
            return False
        element = self.ctx.parents.get(node)
        seq = self.ctx.parents.get(element)
        arg = self.ctx.parents.get(seq)
        call = self.ctx.parents.get(arg)
        if not (isinstance(element, cst.Element) and not isinstance(element, cst.StarredElement)
                and isinstance(seq, (cst.List, cst.Tuple))):
            return False
        found = self._custom_call_arg(seq)
        if found is not None and found[1] == "operand_shapes_with_layout":
            self.token_layouts.append(node)  # a token operand
            return True
        if not (isinstance(arg, cst.Arg) and arg.keyword is None
                and isinstance(call, cst.Call) and self.rule._client_attr(call.func, "Shape") == "tuple_shape"):
            return False
        if len(seq.elements) == 1:
            self.token_tuples.add(call)
        else:
            self.token_layouts.append(node)
        return True

    def _holds_token(self, node: cst.BaseExpression) -> bool:
        return "token_shape" in self.ctx.module.code_for_node(node)

    def _is_aval(self, node: cst.BaseExpression) -> bool:
        if isinstance(node, cst.Call):
            return self._get_shape_index(node) is not None
        if self._aval_display_element(node):
            return True
        return isinstance(node, cst.Name) and (self.reaching(node.value, node) == "aval" or self._aval_of_list(node))

    def _get_shape_followed(self, call: cst.Call) -> bool:
        """Whether every use of ``c.get_shape(x)``'s value is seen (and rewritten or checked):
        ``.dimensions()`` / ``.element_type()`` on it, a comparison, or a name (or a tuple or
        list display bound to a name) whose reads are checked."""
        parent = self.ctx.parents.get(call)
        if isinstance(parent, cst.Attribute) and parent.value is call:
            return parent.attr.value in SHAPE_METHODS
        if isinstance(parent, (cst.Comparison, cst.ComparisonTarget)):
            return True
        if isinstance(parent, cst.Element):
            parent = self.ctx.parents.get(parent)
            if not isinstance(parent, (cst.Tuple, cst.List)):
                return False
            holder = self.ctx.parents.get(parent)
            return isinstance(holder, cst.Assign) and holder.value is parent and self._kind_of(parent) == "aval_display" \
                and len(holder.targets) == 1 and isinstance(holder.targets[0].target, cst.Name)
        return isinstance(parent, cst.Assign) and len(parent.targets) == 1 and isinstance(parent.targets[0].target, cst.Name)

    def _aval_display_element(self, node: cst.BaseExpression) -> bool:
        """``shapes[0]`` with ``shapes`` a tuple or list display of operands' builder shapes,
        or the list of all of them (``list(map(c.get_shape, args))``, exoplanet-core). Any
        index picks one element, each of them an aval now (``shapes[s["coords"][0]]``,
        celerite2); a slice is a sequence, not one shape."""
        return (
            isinstance(node, cst.Subscript) and isinstance(node.value, cst.Name) and len(node.slice) == 1
            and isinstance(node.slice[0].slice, cst.Index) and node.slice[0].slice.star is None
            and self.reaching(node.value.value, node) in AVAL_SEQUENCES
        )

    def _comprehension_variable(self, node: cst.Name) -> bool:
        """Whether a comprehension around ``node`` (in its statement) binds its name."""
        current = self.ctx.parents.get(node)
        while current is not None and not isinstance(current, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
            if isinstance(current, (cst.ListComp, cst.GeneratorExp, cst.SetComp, cst.DictComp)):
                loop: Optional[cst.CompFor] = current.for_in
                while loop is not None:
                    if node.value in _names_in(loop.target):
                        return True
                    loop = loop.inner_for_in
            current = self.ctx.parents.get(current)
        return False

    def _aval_helper_arg(self, node: cst.Name) -> bool:
        """``helper(x)`` of a builder shape ``x``, ``helper`` returning
        ``ShapedArray(x.dimensions(), x.element_type())`` (jambax's ``_xla_shape_to_abstract``,
        numba4jax's ``xla_utils.xla_shape_to_abstract``): recorded to become that aval."""
        arg = self.ctx.parents.get(node)
        call = self.ctx.parents.get(arg)
        if not (isinstance(arg, cst.Arg) and arg.keyword is None and not arg.star and isinstance(call, cst.Call)
                and len(call.args) == 1 and self.rule.shape_to_aval_helper(call.func)):
            return False
        if call not in self.aval_helper_calls:
            self.aval_helper_calls.append(call)
        return True

    def _aval_of_list(self, node: cst.Name) -> bool:
        """``x`` of ``... for x in shapes`` (or ``shapes[::-1]``), ``shapes`` a list of avals."""
        current = self.ctx.parents.get(node)
        while current is not None and not isinstance(current, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
            if isinstance(current, (cst.ListComp, cst.GeneratorExp, cst.SetComp)):
                loop = current.for_in
                if isinstance(loop.target, cst.Name) and loop.target.value == node.value:
                    return loop.inner_for_in is None and self._avals_iterated(loop.iter, node)
                if node.value in _names_in(loop.target):
                    return False
            current = self.ctx.parents.get(current)
        return False

    def _avals_iterated(self, source: cst.BaseExpression, at: cst.CSTNode) -> bool:
        if isinstance(source, cst.Subscript) and len(source.slice) == 1 and isinstance(source.slice[0].slice, cst.Slice):
            source = source.value
        return isinstance(source, cst.Name) and self.reaching(source.value, at) in AVAL_SEQUENCES

    def _in_layout_position(self, node: cst.CSTNode) -> bool:
        current = self.ctx.parents.get(node)
        while current is not None and not isinstance(current, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
            if isinstance(current, cst.Call) and (
                self.custom_call_kind(current) is not None
                or self.rule._client_attr(current.func, "Shape") == "tuple_shape"
            ):
                return True
            current = self.ctx.parents.get(current)
        return False

    def _bound_to(self, name: str, kind: str) -> bool:
        """Every binding of ``name`` so far is of ``kind``."""
        kinds = {k for _, k, _ in self.bindings.get(name, [])}
        return kinds == {kind} and name not in self.rebound

    def _rowmajor_zip(self, value: cst.BaseExpression) -> bool:
        """``[Shape.array_shape(*arg) for arg in zip(dtypes, shapes, layouts)]`` where
        ``layouts`` is ``map(f, shapes)`` (or a name bound once to it) and ``f`` a lambda
        (or a name bound once to one) returning the row-major layout of its shape
        (``range(len(s) - 1, -1, -1)``): the numba bridges' (jambax, numba4jax) result
        shapes, whose layouts are ffi_lowering's default. The bindings of ``layouts`` and
        ``f``, read nowhere else, go with the shapes."""
        if not (isinstance(value, cst.ListComp) and isinstance(value.elt, cst.Call)
                and self.rule._client_attr(value.elt.func, "Shape") == "array_shape"):
            return False
        loop, elt = value.for_in, value.elt
        if loop.inner_for_in is not None or loop.ifs or not isinstance(loop.target, cst.Name) or len(elt.args) != 1 \
                or elt.args[0].star != "*" or not isinstance(elt.args[0].value, cst.Name) \
                or elt.args[0].value.value != loop.target.value:
            return False
        zipped = loop.iter
        if not (isinstance(zipped, cst.Call) and get_full_name_for_node(zipped.func) == "zip" and len(zipped.args) == 3
                and all(a.keyword is None and not a.star for a in zipped.args) and not {"zip", "map"} & set(self.bindings)):
            return False
        shapes, layouts = zipped.args[1].value, zipped.args[2].value
        dropped: list[cst.Assign] = []

        def bound_once(node: cst.BaseExpression, inside: cst.CSTNode) -> cst.BaseExpression:
            """The value of a name bound once in the body and read only in ``inside``."""
            if not isinstance(node, cst.Name):
                return node
            values = self.values.get(node.value, [])
            if len(values) != 1 or node.value in self.rebound or node.value in self.operand_params:
                return None
            reads = [n for n in _name_nodes(self._function, node.value)
                     if not isinstance(self.ctx.parents.get(n), cst.AssignTarget)]
            if any(not _contains(inside, n, self.ctx) for n in reads):
                return None
            dropped.append(self.ctx.parents.get(values[0]))
            return values[0]

        mapped = bound_once(layouts, value)
        if not (isinstance(mapped, cst.Call) and get_full_name_for_node(mapped.func) == "map" and len(mapped.args) == 2
                and all(a.keyword is None and not a.star for a in mapped.args)
                and isinstance(shapes, cst.Name) and isinstance(mapped.args[1].value, cst.Name)
                and mapped.args[1].value.value == shapes.value):
            return False
        function = bound_once(mapped.args[0].value, mapped)
        if not isinstance(function, cst.Lambda):
            return False
        params = function.params
        if len(params.params) != 1 or params.posonly_params or params.kwonly_params \
                or isinstance(params.star_arg, cst.Param) or params.star_kwarg is not None:
            return False
        if not _row_major_text(self.ctx.module.code_for_node(function.body), params.params[0].name.value):
            return False
        self.rowmajor_zips.add(elt)
        self.rowmajor_assigns.extend(a for a in dropped if isinstance(a, cst.Assign))
        return True

    def _rowmajor_tuple(self, call: cst.Call) -> bool:
        """``Shape.tuple_shape(shapes)``, ``shapes`` a row-major shape helper's result (or
        its call itself)."""
        args = call.args
        if not (self.rule._client_attr(call.func, "Shape") == "tuple_shape" and len(args) == 1 and not args[0].keyword
                and not args[0].star):
            return False
        value = args[0].value
        if isinstance(value, cst.Call):
            return isinstance(value.func, (cst.Name, cst.Attribute)) and self.rule.row_major_helper(value.func) is not None
        # ``shapes = Shape.tuple_shape(shapes)`` (BrainPy) reuses the name: the binding
        # that reaches the call is the one that counts.
        return isinstance(value, cst.Name) and self.reaching(value.value, call) == "rowmajor_seq"

    def _rowmajor_use(self, node: cst.Name) -> bool:
        """A read of row-major shapes that only feeds a custom call's layouts: as one, or
        through ``x[i]`` / ``Shape.tuple_shape(x)`` bound to another such name."""
        parent = self.ctx.parents.get(node)
        holder = parent
        if isinstance(parent, cst.Subscript) and parent.value is node:
            holder = parent
        elif isinstance(parent, cst.Arg):
            call = self.ctx.parents.get(parent)
            if isinstance(call, cst.Call) and self._rowmajor_tuple(call):
                holder = call
            else:
                found = self._custom_call_arg(node)
                return found is not None and found[1] in ("shape_with_layout", "operand_shapes_with_layout")
        else:
            return False
        assign = self.ctx.parents.get(holder)
        return isinstance(assign, cst.Assign) and assign.value is holder and assign in self.rowmajor_assigns

    def _static_params(self) -> set[str]:
        """The rule's trailing parameters that are primitive parameters, not operands."""
        if self._static is None:
            self._static = self.rule._static_params(self._function, self.operand_params)
        return self._static

    def _operands_handed_back(self, node: cst.Call) -> bool:
        """``ops.Tuple(c, [x, token])`` returned, its elements operands of the rule."""
        args = node.args
        if not isinstance(self.ctx.parents.get(node), cst.Return) or len(args) != 2 or any(a.keyword or a.star for a in args):
            return False
        builder, seq = args[0].value, args[1].value
        if not (isinstance(builder, cst.Name) and builder.value in self.builder_names) or not isinstance(seq, (cst.List, cst.Tuple)):
            return False
        return bool(seq.elements) and all(
            isinstance(e, cst.Element) and isinstance(e.value, cst.Name) and e.value.value in self.operand_params
            and e.value.value not in self.bindings and e.value.value not in self.rebound
            for e in seq.elements
        )

    def _named_helper_constant(self, call: cst.Call) -> bool:
        """``n = _constant_s32_scalar(c, v)`` (mpi4jax): a helper returning an XlaBuilder
        constant, bound to a name; the name then holds the NumPy value the helper made, and
        each operand use of it becomes ``mlir.ir_constant`` of that value."""
        args = call.args
        if not isinstance(call.func, cst.Name) or not args or not isinstance(args[0].value, cst.Name) \
                or args[0].value.value not in self.builder_names:
            return False
        params = set(self.operand_params) | {self.first} | set(self.avals)
        found = self.rule.constant_helper(call, lambda names: not (names & params))
        if found is None:
            return False
        self.allowed.add(args[0].value)
        self.named_helper_constants[call] = found[:2]
        return True

    def _helper_constant(self, call: cst.Call) -> bool:
        args = call.args
        if not args or not isinstance(args[0].value, cst.Name) or args[0].value.value not in self.builder_names:
            return False
        local = set(self.bindings) | self.rebound | set(self.operand_params) | {self.first} | set(self.avals)
        found = self.rule.constant_helper(call, lambda names: not (names & local))
        if found is None:
            return False
        element = self.ctx.parents.get(call)
        seq = self.ctx.parents.get(element)
        if not isinstance(element, cst.Element) or isinstance(element, cst.StarredElement) or not isinstance(seq, (cst.Tuple, cst.List)):
            return False
        arg = self._custom_call_arg(seq) or self._bound_operands_arg(seq)
        if arg is None or arg[1] != "operands":
            return False
        self.allowed.add(args[0].value)
        self.helper_constants[call] = found[:2]
        if len(found) == 3:
            self.helper_avals[call] = found[2]  # (shape, dtype) of a typed scalar
        return True

    def _bound_operands_arg(self, seq: cst.CSTNode) -> Optional[tuple[cst.Call, str]]:
        """``(call, parameter)`` when ``seq`` is bound once to a name (``operands = (n,
        x, helper(c, v), token)``, mpi4jax 0.2) that is read only as an argument of a
        custom call."""
        assign = self.ctx.parents.get(seq)
        if not (isinstance(assign, cst.Assign) and assign.value is seq and len(assign.targets) == 1
                and isinstance(assign.targets[0].target, cst.Name)):
            return None
        name = assign.targets[0].target.value
        if len(self.values.get(name, [])) != 1 or name in self.rebound:
            return None
        uses = [n for n in _name_nodes(self._function.body, name) if n is not assign.targets[0].target
                and not (isinstance(up := self.ctx.parents.get(n), cst.Arg) and up.keyword is n)]
        return self._custom_call_arg(uses[0]) if len(uses) == 1 else None

    def _custom_call_arg(self, node: cst.CSTNode) -> Optional[tuple[cst.Call, str]]:
        """``(call, parameter)`` when ``node`` is an argument of a custom call."""
        arg = self.ctx.parents.get(node)
        call = self.ctx.parents.get(arg)
        if not isinstance(arg, cst.Arg) or not isinstance(call, cst.Call):
            return None
        kind = self.custom_call_kind(call)
        if kind is None:
            return None
        if arg.keyword is not None:
            return call, arg.keyword.value
        # The function form's first argument is the builder, the method's receiver.
        index = [a for a in call.args if a.keyword is None].index(arg) - (kind != METHOD)
        names = CUSTOM_CALL_PARAMS[kind]
        return (call, names[index]) if 0 <= index < len(names) else None

    def _operand_element(self, node: cst.Name) -> bool:
        """``x`` in ``operands=(..., x, ...)`` or in a name bound to such a tuple."""
        element = self.ctx.parents.get(node)
        seq = self.ctx.parents.get(element)
        if not isinstance(element, cst.Element) or isinstance(element, cst.StarredElement) or not isinstance(seq, (cst.Tuple, cst.List)):
            return False
        found = self._custom_call_arg(seq)
        if found is not None:
            return found[1] == "operands"
        assign = self.ctx.parents.get(seq)
        return isinstance(assign, cst.Assign) and assign.value is seq

    def _whole_layout_list(self, node: cst.Name) -> bool:
        parent = self.ctx.parents.get(node)
        while isinstance(parent, cst.BinaryOperation) and isinstance(parent.operator, cst.Add):
            # one part of ``(s1, s2) + shapes``
            node, parent = parent, self.ctx.parents.get(parent)
        if isinstance(parent, cst.Subscript) and parent.value is node:
            # ``shapes[0]``: one shape of the list, a layout after the rewrite like the rest.
            return self._in_layout_position(parent)
        if isinstance(parent, cst.StarredElement):
            seq = self.ctx.parents.get(parent)
            found = self._custom_call_arg(seq) if isinstance(seq, (cst.Tuple, cst.List)) else None
        else:
            found = self._custom_call_arg(node)
        return found is not None and found[1] == "operand_shapes_with_layout"

    def _allow_builder_arg(self, call: cst.Call) -> None:
        args = [a for a in call.args if a.keyword is None]
        by_keyword = [a for a in call.args if a.keyword is not None and a.keyword.value == "builder"]
        if by_keyword or args:
            first = (by_keyword or args)[0].value
            if isinstance(first, cst.Name) and first.value in self.builder_names:
                self.allowed.add(first)
            elif self._is_ctx_builder(first):
                self.allowed.add(first)

    def _is_ctx_builder(self, node: cst.CSTNode) -> bool:
        return (
            self.form == "ctx" and isinstance(node, cst.Attribute) and node.attr.value == "builder"
            and isinstance(node.value, cst.Name) and node.value.value == self.first
        )

    def _container(self, call: cst.Call) -> Optional[cst.CSTNode]:
        """``[op]`` around a custom call (to unwrap), if any; records whether its results
        reach the rule's return the way the rule's form expects."""
        parent = self.ctx.parents.get(call)
        holder, seq = call, None
        if isinstance(parent, cst.Element):
            candidate = self.ctx.parents.get(parent)
            if isinstance(candidate, (cst.List, cst.Tuple)) and len(candidate.elements) == 1:
                holder = seq = candidate
                parent = self.ctx.parents.get(candidate)
        if isinstance(parent, cst.Return):
            if seq is not None:
                self.wrapped.add(call)
            return seq
        if isinstance(parent, cst.Assign) and len(parent.targets) == 1 and isinstance(parent.targets[0].target, cst.Name) and parent.value is holder:
            # ``r = op`` / ``r = [op]``: rewritten in place when ``r`` only flows to a return.
            name = parent.targets[0].target.value
            self.result_calls.setdefault(name, []).append((call, seq))
            return seq
        self.problem = self.problem or "a custom call is not returned, or assigned to a name that is only returned"
        return None

    def finish(self) -> None:
        """Checks that need the whole body: custom-call results bound to names."""
        for name, calls in self.result_calls.items():
            if name in self.rebound or {kind for _, kind, _ in self.bindings.get(name, [])} != {"result"}:
                self.problem = self.problem or f"`{name}` holds a custom call on some paths and something else on others"
                return
            uses = self.result_uses.get(name, [])
            wrapped_uses, bare_uses = [], []
            for use in uses:
                parent = self.ctx.parents.get(use)
                if isinstance(parent, cst.Return) or (
                    isinstance(parent, cst.Arg) and self.ctx.parents.get(parent) in self.tuple_gets
                    and self.ctx.parents.get(parent).args[0] is parent
                ):
                    bare_uses.append(use)
                    continue
                seq = self.ctx.parents.get(parent) if isinstance(parent, cst.Element) else None
                if isinstance(seq, (cst.List, cst.Tuple)) and len(seq.elements) == 1 and isinstance(self.ctx.parents.get(seq), cst.Return):
                    wrapped_uses.append(seq)
                    continue
                self.problem = self.problem or f"the custom call held by `{name}` is used other than by `return`"
                return
            if not uses:
                self.problem = self.problem or f"the custom call held by `{name}` is not returned"
                return
            listed = {seq is not None for _, seq in calls}
            if len(listed) != 1 or (wrapped_uses and bare_uses) or (wrapped_uses and listed == {True}):
                self.problem = self.problem or f"`{name}` is returned in more than one form"
                return
            for call, seq in calls:
                if seq is not None or wrapped_uses:
                    self.wrapped.add(call)
            self.unwraps.extend(wrapped_uses)

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if self._is_ctx_builder(node) and node not in self.allowed:
            self.problem = self.problem or f"it uses the XlaBuilder (`{self.ctx.module.code_for_node(self.ctx.parents.get(node) or node)}`)"
        elif (
            self.form == "ctx" and isinstance(node.value, cst.Name) and node.value.value == self.first
            and node.attr.value not in ("builder", "avals_in", "avals_out")
        ):
            # TranslationContext.platform/axis_env have no LoweringRuleContext counterpart.
            self.problem = self.problem or f"it reads `{self.first}.{node.attr.value}` of the translation context"

    def visit_Name(self, node: cst.Name) -> None:
        self.names_seen.add(node.value)
        parent = self.ctx.parents.get(node)
        if isinstance(parent, cst.Attribute) and parent.attr is node:
            return  # `x.shape`: an attribute, not the variable `shape`
        if isinstance(parent, cst.Arg) and parent.keyword is node:
            return
        if node.value in self.builder_names and node not in self.allowed:
            parent = self.ctx.parents.get(node)
            call = self.ctx.parents.get(parent) if isinstance(parent, cst.Arg) else None
            if isinstance(call, cst.Call) and self.rule._client_attr(call.func, "ops") is None:
                # A helper that builds ops (a constant, say) from the builder: what it
                # returns is not visible here, so neither is its MLIR counterpart.
                text = _snippet(self.ctx, call)
                up = self.ctx.parents.get(call)
                if isinstance(up, cst.Element):
                    up = self.ctx.parents.get(self.ctx.parents.get(up))
                if isinstance(up, cst.Return):
                    # celerite2: ``return _translation_rule(rev_spec, c, *args)``: the helper
                    # builds the whole result, custom call included.
                    advice = ("the helper builds what this rule returns: make it an MLIR lowering helper that takes "
                              "the lowering context instead of the builder, and pass this rule's ctx to it")
                else:
                    advice = "give the custom call the helper's value as `mlir.ir_constant(np.asarray(value))` instead"
                self.problem = self.problem or (
                    f"it passes the XlaBuilder to `{text}`, whose XLA ops cannot be converted from here: {advice}")
                return
            text = self.ctx.module.code_for_node(self.ctx.parents.get(parent) if isinstance(parent, cst.Attribute) else parent)
            self.problem = self.problem or f"it uses the XlaBuilder beyond CustomCall (`{one_line(text)[:60]}`)"
        elif self._comprehension_variable(node) and not self._aval_of_list(node):
            pass  # a comprehension's own variable, whatever the function binds to that name
        elif node.value in self.avals:
            self.aval_names.append(node)
        elif self._aval_of_list(node):
            comp = self.ctx.parents.get(parent)
            if isinstance(parent, cst.CompFor) and parent.target is node:
                pass
            elif isinstance(parent, cst.Attribute) and parent.attr.value in SHAPE_METHODS and isinstance(comp, cst.Call) and not comp.args:
                pass  # x.dimensions() / x.element_type(): rewritten to the aval's shape / dtype
            elif self._aval_helper_arg(node):
                pass  # helper(x) that built the aval from the shape: that aval
            elif self._in_layout_position(node) or self._in_array_shape(node):
                self._shape_as_layout(node)
            else:
                self.problem = self.problem or f"the builder shape `{node.value}` is used beyond dimensions()/element_type()"
        elif node.value in self.bindings:
            if isinstance(parent, cst.AssignTarget):
                return
            kind = self.reaching(node.value, node)
            if kind in ROW_MAJOR_KINDS:
                if not self._rowmajor_use(node):
                    self.problem = self.problem or (
                        f"`{node.value}`, row-major XLA shapes a helper built, is used other than as a custom call's layouts")
                return
            if kind == "result":
                self.result_uses.setdefault(node.value, []).append(node)
                return
            if kind == "constant":
                if self._operand_element(node) and node.value in self.constant_vars:
                    self.constant_uses.append(node)
                else:
                    self.problem = self.problem or f"the constant `{node.value}` is used other than as a custom-call operand"
                return
            if kind == "shapes":
                if not self._whole_layout_list(node):
                    self.problem = self.problem or (
                        f"`{node.value}`, a list of XLA shapes, is used other than as a custom call's whole "
                        "operand_shapes_with_layout: as one element of it the call raised TypeError in XlaBuilder, so it never "
                        "lowered and its intended layouts are unknown")
                return
            if kind in ("array", "tuple"):
                # An XLA shape may only feed layouts: custom-call arguments or tuple_shape.
                if not self._in_layout_position(node) and not self._feeds_shapes(node):
                    self.problem = self.problem or f"shape `{node.value}` is used for more than a layout"
            elif kind == "aval":
                if isinstance(parent, cst.Attribute) and parent.attr.value in SHAPE_METHODS:
                    pass  # x.dimensions() / x.element_type(): rewritten to the aval's shape / dtype
                elif self._aval_helper_arg(node):
                    pass  # helper(x) that built the aval from the shape: that aval
                elif self._in_layout_position(node) or self._in_array_shape(node):
                    self._shape_as_layout(node)
                elif not isinstance(parent, (cst.Comparison, cst.ComparisonTarget)):
                    self.problem = self.problem or f"the builder shape `{node.value}` is used beyond dimensions()/element_type()"
            elif kind in AVAL_SEQUENCES:
                call = self.ctx.parents.get(parent) if isinstance(parent, cst.Arg) else None
                iterated = parent if isinstance(parent, cst.Subscript) and parent.value is node else node
                loop = self.ctx.parents.get(iterated)
                method = self.ctx.parents.get(loop) if isinstance(loop, cst.Attribute) else None
                if isinstance(call, cst.Call) and get_full_name_for_node(call.func) == "len" and "len" not in self.bindings:
                    pass
                elif (self._aval_display_element(iterated) and isinstance(loop, cst.Attribute)
                      and loop.attr.value in SHAPE_METHODS and isinstance(method, cst.Call) and not method.args):
                    pass  # shapes[0].dimensions(): rewritten to the aval's shape
                elif isinstance(loop, cst.CompFor) and loop.iter is iterated and self._avals_iterated(iterated, node):
                    pass  # each element is an aval: its uses are checked where it is read
                elif (found := self._custom_call_arg(node)) is not None and found[1] == "operand_shapes_with_layout" \
                        and kind == "avals":
                    pass  # the operands' own shapes as their layouts: the default (see _own_shapes)
                else:
                    self.problem = self.problem or (
                        f"`{node.value}`, the operands' builder shapes, is used other than by iterating over it or len()")
            elif kind == "ambiguous" and any(binding[1] in ("array", "tuple", "aval", *AVAL_SEQUENCES) for binding in self.bindings[node.value]):
                self.problem = self.problem or f"`{node.value}` is bound to an XLA shape on some paths only"


class _OpsScan(cst.CSTVisitor):
    """A builder rule whose XlaOps all become MLIR values: what each name holds (an op,
    an op's shape, a layout) and every use of them, each of which must have an exact
    counterpart in an MLIR lowering rule."""

    TRACKED = frozenset({"builder", "op", "aval", "layout"})

    def __init__(self, rule: "XlaTranslationRule", function: cst.FunctionDef, builder: str, operand_params: list, star) -> None:
        super().__init__()
        self.rule, self.ctx, self.function = rule, rule.ctx, function
        self.builder, self.operand_params, self.star = builder, operand_params, star
        self.bindings: dict[str, list[cst.BaseExpression]] = {}
        self.other_bound: set[str] = set()
        self.calls: list[cst.Call] = []
        self.names: list[cst.Name] = []
        self.returns: list[cst.Return] = []
        self.names_seen: set[str] = set()
        self.problem: Optional[str] = None
        self.custom_call: Optional[cst.Call] = None
        self.returned_directly = False
        self.rebound: set[str] = set()
        self.ops: list[tuple[cst.Call, str]] = []
        self.constants: list[cst.Call] = []
        self.shape_calls: list[tuple[cst.Call, str]] = []
        self.default_layouts: list[cst.CSTNode] = []
        self.get_shapes: list[tuple[cst.Call, str]] = []
        self.shape_methods: list[cst.Call] = []
        self.wrapped_returns: list[cst.BaseExpression] = []
        self.client_calls: list[cst.Call] = []
        self.kinds: dict[str, str] = {}
        self.transposed: set[str] = set()

    def _fail(self, why: str) -> None:
        self.problem = self.problem or why

    # -- collection --------------------------------------------------------------
    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        self._fail("it defines a nested function")
        return False

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        self._fail("it defines a lambda")
        return False

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        self._fail("it defines a class")
        return False

    def visit_For(self, node: cst.For) -> None:
        self._fail("it loops around builder ops")

    def visit_While(self, node: cst.While) -> None:
        self._fail("it loops around builder ops")

    def visit_Try(self, node: cst.Try) -> None:
        self._fail("it handles exceptions around builder ops")

    def visit_With(self, node: cst.With) -> None:
        self._fail("it uses `with` around builder ops")

    def visit_Assign(self, node: cst.Assign) -> None:
        if len(node.targets) == 1 and isinstance(node.targets[0].target, cst.Name):
            self.bindings.setdefault(node.targets[0].target.value, []).append(node.value)
        else:
            for target in node.targets:
                self.other_bound.update(_names_in(target.target))

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self.other_bound.update(_names_in(node.target))

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self.other_bound.update(_names_in(node.target))

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        self.other_bound.update(_names_in(node.target))

    def visit_AsName(self, node: cst.AsName) -> None:
        self.other_bound.update(_names_in(node.name))

    def visit_Call(self, node: cst.Call) -> None:
        self.calls.append(node)

    def visit_Return(self, node: cst.Return) -> None:
        self.returns.append(node)

    def visit_Name(self, node: cst.Name) -> None:
        self.names_seen.add(node.value)
        parent = self.ctx.parents.get(node)
        if (isinstance(parent, cst.Attribute) and parent.attr is node) or (isinstance(parent, cst.Arg) and parent.keyword is node) \
                or isinstance(parent, cst.AssignTarget):
            return
        self.names.append(node)

    # -- kinds -------------------------------------------------------------------
    def kind(self, node: cst.BaseExpression) -> str:
        if isinstance(node, cst.Name):
            if node.value == self.builder:
                return "builder"
            if node.value == self.star:
                return "star"
            if node.value in self.kinds:
                return self.kinds[node.value]
            return "op" if node.value in self.operand_params else "other"
        if isinstance(node, cst.Call):
            if self.rule._client_attr(node.func, "ops") is not None:
                return "op"  # ops this rule does not convert are reported where they are built
            if self._get_shape_arg(node) is not None:
                return "aval"
            if self.rule._client_attr(node.func, "Shape") == "array_shape":
                return "layout"
        return "other"

    def _get_shape_arg(self, call: cst.Call) -> Optional[cst.BaseExpression]:
        func = call.func
        if (isinstance(func, cst.Attribute) and func.attr.value in GET_SHAPE and isinstance(func.value, cst.Name)
                and func.value.value == self.builder and len(call.args) == 1 and not call.args[0].keyword and not call.args[0].star):
            return call.args[0].value
        return None

    def _classify(self) -> None:
        for _ in range(4):  # aliases of aliases settle in a few rounds
            for name, values in self.bindings.items():
                kinds = {self.kind(v) for v in values} | ({"op"} if name in self.operand_params else set())
                if len(kinds) == 1:
                    self.kinds[name] = kinds.pop()
                elif kinds & self.TRACKED:
                    self.kinds[name] = "mixed"
        for name, values in self.bindings.items():
            kind = self.kinds.get(name)
            if kind == "mixed":
                self._fail(f"`{name}` holds an XLA op or shape on some paths and something else on others")
            if name in (self.builder, self.star):
                self._fail(f"it reassigns its parameter `{name}`")
            if name in self.operand_params:
                self.rebound.add(name)
            for value in values:
                if isinstance(value, cst.Call) and self.rule._client_attr(value.func, "ops") == "Transpose":
                    self.transposed.add(name)
                elif isinstance(value, cst.Name) and value.value in self.transposed:
                    self.transposed.add(name)
        for name in self.other_bound:
            if self.kind(cst.Name(name)) in self.TRACKED | {"star"}:
                self._fail(f"`{name}`, an XLA op or shape, is bound by unpacking, a loop or `as`")

    # -- checks ------------------------------------------------------------------
    def run(self) -> Optional[str]:
        walk.read(self.function.body, self)
        if self.problem:
            return self.problem
        self._classify()
        customs = [c for c in self.calls if self.rule._client_attr(c.func, "ops") in CUSTOM_CALLS]
        if len(customs) != 1:
            self._fail("it builds no custom call" if not customs else "it builds more than one custom call")
            return self.problem
        self.custom_call = customs[0]
        self._check_custom_call()
        for call in self.calls:
            self._check_call(call)
        for name in self.names:
            self._check_name(name)
        if not self.returns:
            self._fail("it returns no op")
        for ret in self.returns:
            value = ret.value
            if value is self.custom_call:
                self.returned_directly = True
            elif value is not None and self.kind(value) == "op" and not (isinstance(value, cst.Name) and value.value == self.star):
                self.wrapped_returns.append(value)
            else:
                self._fail("it returns something other than one op")
        return self.problem

    def _check_custom_call(self) -> None:
        call = self.custom_call
        kind = self.rule._client_attr(call.func, "ops")
        values = _call_values(call, CUSTOM_CALL_PARAMS[kind])
        if isinstance(values, str):
            return self._fail(values)
        parent = self.ctx.parents.get(call)
        if not isinstance(parent, cst.Return) and not (
                isinstance(parent, cst.Assign) and len(parent.targets) == 1 and isinstance(parent.targets[0].target, cst.Name)):
            return self._fail("the custom call is neither returned nor assigned to a name")
        operands = values.get("operands")
        if not isinstance(operands, (cst.Tuple, cst.List)) or not all(
                isinstance(e, cst.Element) and not isinstance(e, cst.StarredElement) and isinstance(e.value, cst.Name)
                and self.kind(e.value) == "op" for e in operands.elements):
            return self._fail("the custom call's operands are not a tuple of ops named in the rule")
        if "call_target_name" not in values:
            return self._fail("a custom call lacks its target name")
        if kind == "CustomCallWithLayout":
            layouts = values.get("operand_shapes_with_layout")
            if not isinstance(layouts, (cst.Tuple, cst.List)) or len(layouts.elements) != len(operands.elements) or any(
                    isinstance(e, cst.StarredElement) for e in layouts.elements):
                return self._fail("its operand shapes are not a tuple with one XLA shape per operand")
            if "shape_with_layout" not in values:
                return self._fail("a CustomCallWithLayout lacks its result shape")
        shape = values.get("shape_with_layout", values.get("shape"))
        if shape is None or self.result_avals(shape) is None:
            self._fail("its result shape is not an XLA shape built in the rule")

    def _layout_position(self, node: cst.CSTNode) -> bool:
        """An XLA shape the custom call reads only for its layout (operand or result)."""
        parent = self.ctx.parents.get(node)
        holder = node
        if isinstance(parent, cst.Element):
            holder = self.ctx.parents.get(parent)
            if not isinstance(holder, (cst.Tuple, cst.List)):
                return False
            arg = self.ctx.parents.get(holder)
            call = self.ctx.parents.get(arg)
            if isinstance(arg, cst.Arg) and isinstance(call, cst.Call) and self.rule._client_attr(call.func, "Shape") == "tuple_shape":
                return self._layout_position(call)
        arg = self.ctx.parents.get(holder)
        call = self.ctx.parents.get(arg)
        if call is not self.custom_call or not isinstance(arg, cst.Arg):
            return False
        kind = self.rule._client_attr(call.func, "ops")
        values = _call_values(call, CUSTOM_CALL_PARAMS[kind])
        if isinstance(values, str):
            return False
        wanted = ("operand_shapes_with_layout", "shape_with_layout", "shape") if holder is not node else ("shape_with_layout", "shape")
        return any(values.get(key) is holder for key in wanted)

    def _default_layout(self, op: cst.BaseExpression) -> bool:
        """Whether the builder gave ``op``, where it is read, XLA's default (row-major)
        layout: a Transpose result keeps its operand's physical order, so its shape's
        layout is permuted. Decided by the binding of ``op`` that reaches the read in
        straight-line code; when a branch in between may rebind it, by all its bindings."""
        if not isinstance(op, cst.Name):
            return False
        if op.value not in self.transposed:
            return True
        node: cst.CSTNode = op
        while node is not None and node is not self.function:
            parent = self.ctx.parents.get(node)
            if isinstance(parent, (cst.IndentedBlock, cst.SimpleStatementSuite)) and node in parent.body:
                for stmt in reversed(parent.body[:list(parent.body).index(node)]):
                    if op.value not in _assigned_names(stmt):
                        continue
                    small = stmt.body[0] if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 else None
                    if not (isinstance(small, cst.Assign) and len(small.targets) == 1):
                        return False
                    value = small.value
                    if isinstance(value, cst.Call) and self.rule._client_attr(value.func, "ops") == "Transpose":
                        return False
                    return not isinstance(value, cst.Name) or self._default_layout(value)
            node = parent
        return op.value in self.operand_params

    def result_avals(self, shape: cst.BaseExpression) -> Optional[list]:
        """One entry per result: the aval expression (a node or code), ``None`` when only
        the layout is known; ``None`` overall when ``shape`` is not understood."""
        if isinstance(shape, cst.Call) and self.rule._client_attr(shape.func, "Shape") == "tuple_shape":
            args = positional(shape)
            if len(shape.args) != 1 or len(args) != 1 or not isinstance(args[0].value, (cst.Tuple, cst.List)):
                return None
            found = []
            for element in args[0].value.elements:
                one = None if isinstance(element, cst.StarredElement) else self.result_avals(element.value)
                if one is None:
                    return None
                found += one
            return found
        kind = self.kind(shape)
        if kind == "layout":
            return [None]
        if kind == "aval":
            if isinstance(shape, cst.Call):
                return [self._aval_code(self._get_shape_arg(shape))]
            return [shape]
        return None

    def _aval_code(self, op: cst.BaseExpression) -> str:
        if isinstance(op, cst.Name) and op.value in self.operand_params and op.value not in self.rebound:
            return f"ctx.avals_in[{self.operand_params.index(op.value)}]"
        return f"{AVAL_HELPER}({self.ctx.module.code_for_node(op)})"

    def _check_call(self, call: cst.Call) -> None:
        ops = self.rule._client_attr(call.func, "ops")
        shape = self.rule._client_attr(call.func, "Shape")
        if ops is not None or shape is not None:
            self.client_calls.append(call)
        args = positional(call)
        if ops in OPS_CONVERTED:
            if len(args) != 2 or len(call.args) != 2 or self.kind(args[0].value) != "op":
                return self._fail(f"an unusual ops.{ops} (two positional arguments, an op first, are converted)")
            self.ops.append((call, ops))
        elif ops in CONSTANTS:
            if len(args) != 2 or len(call.args) != 2 or self.kind(args[0].value) != "builder":
                return self._fail(f"an unusual ops.{ops}")
            self.constants.append(call)
        elif ops in CUSTOM_CALLS:
            first = keyword_value(call, "builder") or (args[0].value if args else None)
            if first is None or self.kind(first) != "builder":
                self._fail("the custom call is not built on the rule's builder")
        elif ops is not None:
            self._fail(f"it uses xla_client.ops.{ops}, which has no StableHLO conversion here")
        elif shape == "array_shape":
            if len(args) not in (2, 3) or len(call.args) != len(args):
                return self._fail("an unusual Shape.array_shape")
            if mismatch := _layout_rank_mismatch(self.ctx, call):
                return self._fail(mismatch)
            assign = self.ctx.parents.get(call)
            if not self._layout_position(call) and not (isinstance(assign, cst.Assign) and assign.value is call):
                return self._fail("an XLA shape is used for more than a layout")
            self.shape_calls.append((call, shape))
        elif shape == "tuple_shape":
            if not self._layout_position(call):
                return self._fail("Shape.tuple_shape is used other than as the custom call's result shape")
            self.shape_calls.append((call, shape))
        elif shape is not None:
            self._fail(f"it uses xla_client.Shape.{shape}")
        elif (op := self._get_shape_arg(call)) is not None:
            if self.kind(op) != "op" or not isinstance(op, cst.Name):
                return self._fail("it asks the builder for the shape of something other than an op named in the rule")
            if self._layout_position(call):
                if not self._default_layout(op):
                    return self._fail(f"the layout of `{op.value}`, a transposed op, is the permuted one XlaBuilder chose")
                self.default_layouts.append(call)
            else:
                self.get_shapes.append((call, self._aval_code(op)))
        elif (isinstance(call.func, cst.Attribute) and call.func.attr.value in SHAPE_METHODS and not call.args
              and self.kind(call.func.value) == "aval"):
            self.shape_methods.append(call)

    def _check_name(self, node: cst.Name) -> None:
        kind = self.kind(node)
        if kind not in self.TRACKED and kind != "star":
            return
        parent = self.ctx.parents.get(node)
        grand = self.ctx.parents.get(parent)
        if isinstance(parent, cst.Assign) and parent.value is node:
            return  # an alias: same kind, checked where it is used
        if kind == "builder":
            if isinstance(parent, cst.Arg) and isinstance(grand, cst.Call) and self.rule._client_attr(grand.func, "ops") is not None:
                return
            if isinstance(parent, cst.Attribute) and isinstance(grand, cst.Call) and grand.func is parent and self._get_shape_arg(grand) is not None:
                return
            return self._fail(f"it uses the XlaBuilder beyond the ops it converts (`{_snippet(self.ctx, grand or node)}`)")
        if kind == "op":
            if isinstance(parent, cst.Return):
                return
            if isinstance(parent, cst.Arg) and isinstance(grand, cst.Call) and (
                    self._get_shape_arg(grand) is node
                    or (self.rule._client_attr(grand.func, "ops") in OPS_CONVERTED and positional(grand)[0] is parent)):
                return
            if isinstance(parent, cst.Element):
                seq = self.ctx.parents.get(parent)
                arg = self.ctx.parents.get(seq)
                if isinstance(arg, cst.Arg) and self.ctx.parents.get(arg) is self.custom_call:
                    values = _call_values(self.custom_call, CUSTOM_CALL_PARAMS[self.rule._client_attr(self.custom_call.func, "ops")])
                    if not isinstance(values, str) and values.get("operands") is seq:
                        return
            return self._fail(f"the op `{node.value}` is used other than by the builder ops converted here")
        if kind == "star":
            return self._fail(f"its operands `*{node.value}` are spread into the custom call")
        if self._layout_position(node):
            if kind == "aval":
                if not all(self._default_layout(self._get_shape_arg(v)) for v in self.bindings.get(node.value, [])
                           if isinstance(v, cst.Call) and self._get_shape_arg(v) is not None):
                    return self._fail(f"`{node.value}` is the shape of a transposed op, whose layout XlaBuilder permuted")
                self.default_layouts.append(node)
            return
        if kind == "aval" and isinstance(parent, cst.Attribute) and parent.attr.value in SHAPE_METHODS and isinstance(grand, cst.Call) and not grand.args:
            return
        self._fail(f"the XLA shape `{node.value}` is used for more than a layout or its dimensions and element type")


def _layout_rank_mismatch(ctx, call: cst.Call) -> Optional[str]:
    """Why ``Shape.array_shape(dtype, dims, minor_to_major)`` written with literal tuples
    never built: XlaBuilder raised INVALID_ARGUMENT when the layout's length is not the rank."""
    args = positional(call)
    if len(args) != 3:
        return None
    dims, layout = args[1].value, args[2].value
    if not all(isinstance(n, (cst.Tuple, cst.List)) and not any(isinstance(e, cst.StarredElement) for e in n.elements)
               for n in (dims, layout)):
        return None
    if len(dims.elements) == len(layout.elements):
        return None
    return (f"`{_snippet(ctx, call)}` gives a rank-{len(dims.elements)} shape a layout of {len(layout.elements)} entries: "
            "XlaBuilder raised INVALID_ARGUMENT on it, so the rule never built and the layout it meant is unknown")


def _call_values(call: cst.Call, names: tuple) -> "dict | str":
    """A custom call's arguments by parameter name (the builder left out), or why not."""
    if any(a.star for a in call.args):
        return "a custom call takes *args/**kwargs"
    skip = 0 if keyword(call, "builder") is not None else 1
    values: dict = {}
    for index, arg in enumerate(positional(call)[skip:]):
        if index >= len(names):
            return "a custom call has too many positional arguments"
        values[names[index]] = arg.value
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value != "builder":
            if arg.keyword.value not in names:
                return f"a custom call has an unknown argument `{arg.keyword.value}`"
            values[arg.keyword.value] = arg.value
    return values


@lru_cache(maxsize=256)
def _project_function_forwards(path: str, function: str, check=None) -> bool:
    """Whether ``function``, defined once at the top of the project module at ``path``
    and not rebound there, passes ``check`` (a forwarding decorator by default)."""
    tree = project_module_ast(path, function.encode())
    if tree is None:
        return False
    defs = [n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == function]
    rebound = [n for n in tree.body if isinstance(n, (ast.Assign, ast.AnnAssign, ast.ImportFrom, ast.Import))
               and function in {getattr(t, "id", None) for t in ast.walk(n) if isinstance(t, ast.Name)}
               | {(a.asname or a.name) for a in getattr(n, "names", [])}]
    return len(defs) == 1 and not rebound and (check or _forwards_arguments)(defs[0])


def _forwards_arguments(deco: ast.stmt) -> bool:
    """``def deco(func): ...; return func``, or ``def deco(func): @functools.wraps(func)
    def wrapped(*args, **kwargs): <statements that do not touch args, kwargs, func>;
    return func(*args, **kwargs)`` then ``return wrapped``: nothing the rule receives or
    returns is changed (side effects such as checks or flushing are the decorator's own)."""
    if not isinstance(deco, ast.FunctionDef) or deco.decorator_list:
        return False
    a = deco.args
    if [p.arg for p in a.posonlyargs + a.args] != [a.args[0].arg if a.args else ""] or a.vararg or a.kwarg or a.kwonlyargs \
            or a.defaults:
        return False
    func = a.args[0].arg
    *before, last = deco.body
    if not (isinstance(last, ast.Return) and isinstance(last.value, ast.Name)):
        return False
    if last.value.id == func:
        return not any(_touches(stmt, {func}) for stmt in before)
    wrappers = [s for s in before if isinstance(s, ast.FunctionDef) and s.name == last.value.id]
    if len(wrappers) != 1 or any(_touches(s, {func, last.value.id}) for s in before if s is not wrappers[0]):
        return False
    wrapped = wrappers[0]
    w = wrapped.args
    # ``def wrapped(*args)`` without ``**kwargs`` served only primitives without parameters
    # as a translation rule too: the lowering rule is called the same way.
    if w.posonlyargs or w.args or w.kwonlyargs or not w.vararg:
        return False
    for d in wrapped.decorator_list:
        if not (isinstance(d, ast.Call) and ast.unparse(d.func) in ("functools.wraps", "wraps") and len(d.args) == 1
                and not d.keywords and isinstance(d.args[0], ast.Name) and d.args[0].id == func):
            return False
    call = f"{func}(*{w.vararg.arg}, **{w.kwarg.arg})" if w.kwarg else f"{func}(*{w.vararg.arg})"
    names = {func} | ({w.kwarg.arg} if w.kwarg else set())
    *steps, result = wrapped.body
    if not isinstance(result, ast.Return) or result.value is None:
        return False
    # The positional arguments arrive as a tuple: a log line may read them
    # (``_trace_indent("call " + pp_values(args))``, jax's own tracing example).
    helpers = {s.name for s in before if isinstance(s, ast.FunctionDef) and s is not wrapped}
    clean = lambda stmt, readable: not _touches(stmt, names) and _reads_only(stmt, readable, helpers)  # noqa: E731
    if isinstance(result.value, ast.Call):
        return ast.unparse(result.value) == call and all(clean(stmt, {w.vararg.arg}) for stmt in steps)
    if not isinstance(result.value, ast.Name):
        return False
    # ``res = func(*args); <bookkeeping that may print res>; return res``
    kept = result.value.id
    binds = [s for s in steps if isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name)
             and s.targets[0].id == kept and ast.unparse(s.value) == call]
    return len(binds) == 1 and all(clean(stmt, {w.vararg.arg, kept}) for stmt in steps if stmt is not binds[0])


#: Calls that only turn a value into text for a log line.
_TEXT_CALLS = frozenset({"print", "str", "repr", "format", "len", "type", "id"})
_TEXT_METHODS = frozenset({"format", "join", "debug", "info", "warning", "error", "log", "write"})


def _reads_only(stmt: ast.stmt, names: set, helpers: set) -> bool:
    """Every use of ``names`` in ``stmt`` is turned into text for a log line: an argument
    of ``print``/``str``/``"...".format``/a logger method, an f-string, or a formatting
    helper the decorator defines itself (``pp_values(args)``). Anything else (an item or
    attribute of it, a check it is handed to) could depend on what the rule receives."""
    parents = {child: node for node in ast.walk(stmt) for child in ast.iter_child_nodes(node)}
    for node in ast.walk(stmt):
        if isinstance(node, (ast.Return, ast.Yield, ast.YieldFrom, ast.Nonlocal, ast.Global)):
            return False
        if not (isinstance(node, ast.Name) and node.id in names):
            continue
        if not isinstance(node.ctx, ast.Load):
            return False
        # Up to the first call or f-string that turns it into text; what receives that text is free.
        child, up = node, parents.get(node)
        while True:
            if isinstance(up, ast.JoinedStr):
                break
            if isinstance(up, ast.Call):
                callee = up.func
                text = (isinstance(callee, ast.Name) and (callee.id in _TEXT_CALLS or callee.id in helpers)) or \
                       (isinstance(callee, ast.Attribute) and callee.attr in _TEXT_METHODS)
                if child is callee or not text:
                    return False
                break
            if not isinstance(up, (ast.FormattedValue, ast.Tuple, ast.List, ast.keyword)):
                return False
            child, up = up, parents.get(up)
    return True


def _forwarding_factory(factory: ast.stmt) -> bool:
    """``def trace(name): def decorate(func): <a forwarding decorator>; return decorate``:
    ``@trace("label")`` is then a forwarding decorator whatever the arguments."""
    if not isinstance(factory, ast.FunctionDef) or factory.decorator_list:
        return False
    *before, last = factory.body
    if not (isinstance(last, ast.Return) and isinstance(last.value, ast.Name)):
        return False
    inner = [s for s in before if isinstance(s, ast.FunctionDef) and s.name == last.value.id]
    return len(inner) == 1 and _forwards_arguments(inner[0]) and not any(
        _touches(s, {last.value.id}) for s in before if s is not inner[0])


def _touches(stmt: ast.stmt, names: set) -> bool:
    """Whether ``stmt`` reads or binds one of ``names``, returns, yields, or declares a
    name nonlocal/global (any of which could change what the wrapped call sees or gives).
    A nested ``def`` (a formatting helper of the decorator) only counts by the names it
    reads: its own ``return`` runs when it is called, not where it is defined."""
    if isinstance(stmt, ast.FunctionDef):
        return any(isinstance(node, ast.Name) and node.id in names for node in ast.walk(stmt))
    # ``func.__name__`` in a log line reads a label, not what the rule receives or gives.
    labels = {id(n.value) for n in ast.walk(stmt) if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name)
              and n.attr in ("__name__", "__qualname__", "__module__", "__doc__")}
    for node in ast.walk(stmt):
        if isinstance(node, ast.Name) and node.id in names and id(node) not in labels:
            return True
        if isinstance(node, (ast.Return, ast.Yield, ast.YieldFrom, ast.Nonlocal, ast.Global)):
            return True
    return False


#: Builtins that only count, pair up or copy values: calling them on XlaOps or MLIR values
#: builds nothing.
VALUE_BUILTINS = frozenset({"tuple", "list", "len", "zip", "range", "enumerate", "isinstance", "dict", "reversed", "sorted"})


def _del_statements(node: cst.CSTNode) -> list[cst.Del]:
    found: list[cst.Del] = []

    class _Dels(cst.CSTVisitor):
        def visit_Del(self, n: cst.Del) -> None:
            found.append(n)

        def visit_FunctionDef(self, n: cst.FunctionDef) -> bool:
            return False

    walk.read(node, _Dels())
    return found


def _del_targets(stmt: cst.Del) -> list[str]:
    """The names ``del a, b`` deletes; a non-name target (``del x[0]``) as its code."""
    target = stmt.target
    elements = [e.value for e in target.elements] if isinstance(target, (cst.Tuple, cst.List)) else [target]
    return [e.value if isinstance(e, cst.Name) else cst.Module([]).code_for_node(e) for e in elements]


def _names_read_outside_del(node: cst.CSTNode) -> set[str]:
    """Names read in ``node`` other than as the target of a ``del``."""
    found: set[str] = set()

    class _Reads(cst.CSTVisitor):
        def visit_Del(self, n: cst.Del) -> bool:
            return False

        def visit_Name(self, n: cst.Name) -> None:
            found.add(n.value)

        def visit_Attribute(self, n: cst.Attribute) -> bool:
            walk.read(n.value, self)  # ``x.name`` reads x, not name
            return False

    walk.read(node, _Reads())
    return found


def _builder_constant_value(value: cst.BaseExpression, method: str, numpy: str) -> cst.BaseExpression:
    """What ``c.<method>(value)`` handed XLA: ``np.int32(value)`` for ``ConstantS32Scalar``,
    the value itself for ``Constant``."""
    scalar = BUILDER_CONSTANTS[method]
    return value if scalar is None else cst.Call(cst.parse_expression(f"{numpy}.{scalar}"), [cst.Arg(value)])


#: The custom call's keywords that ffi_lowering keeps under another name.
KEPT_KEYWORDS = {"opaque": "backend_config", "has_side_effect": "has_side_effect",
                 "operand_shapes_with_layout": "operand_layouts", "shape_with_layout": "result_layouts"}


def _keyword_comments(call: Optional[cst.Call]) -> dict[str, list[cst.EmptyLine]]:
    """The comment lines above each keyword argument of ``call`` that ffi_lowering keeps
    (``# otherwise the function might get called multiple times`` over
    ``has_side_effect=True``), under the keyword's new name."""
    found: dict[str, list[cst.EmptyLine]] = {}
    for index, arg in enumerate(call.args if call is not None else ()):
        if arg.keyword is None or arg.keyword.value not in KEPT_KEYWORDS:
            continue
        before = call.args[index - 1].comma if index else None
        space = before.whitespace_after if isinstance(before, cst.Comma) else call.whitespace_before_args if not index else None
        if isinstance(space, cst.ParenthesizedWhitespace):
            lines = [line for line in space.empty_lines if line.comment is not None]
            if lines:
                found[KEPT_KEYWORDS[arg.keyword.value]] = lines
    return found


def _lowering_call(ffi_lowering: str, target: cst.BaseExpression, keywords: list, indent: str,
                   source: Optional[cst.Call] = None) -> cst.Call:
    """``ffi_lowering(target, key=value, ...)``, one argument per line, one level deeper
    than the statement (indent=True adds the statement's own); the comments above the
    legacy ``source`` call's kept keywords stay above them."""
    comments = _keyword_comments(source)

    def line(lines=()):
        return cst.Comma(whitespace_after=cst.ParenthesizedWhitespace(
            first_line=cst.TrailingWhitespace(), empty_lines=list(lines), indent=True, last_line=cst.SimpleWhitespace(indent)))

    after = [key for key, _ in keywords]
    args = [cst.Arg(target, comma=line(comments.get(after[0], ())) if after else line())]
    for position, (key, value) in enumerate(keywords):
        following = after[position + 1] if position + 1 < len(after) else None
        args.append(cst.Arg(value, keyword=cst.Name(key), equal=TIGHT_EQUAL, comma=line(comments.get(following, ()) if following else ())))
    args[-1] = args[-1].with_changes(comma=cst.Comma(whitespace_after=cst.ParenthesizedWhitespace(
        first_line=cst.TrailingWhitespace(), indent=True, last_line=cst.SimpleWhitespace(""))))
    return cst.Call(cst.parse_expression(ffi_lowering), args, whitespace_before_args=cst.ParenthesizedWhitespace(
        first_line=cst.TrailingWhitespace(), indent=True, last_line=cst.SimpleWhitespace(indent)))


def _reshape_edit(hlo: str, ir: str):
    def edit(updated: cst.CSTNode) -> cst.CSTNode:
        # ops.Reshape(x, dims) kept x's element type; StableHLO names the result type.
        operand, dims = (a.value for a in updated.args)
        return cst.parse_expression(
            f"{hlo}.reshape({ir}.RankedTensorType.get({_code(dims)}, {ir}.RankedTensorType({_code(operand)}.type).element_type), {_code(operand)})")

    return edit


def _transpose_edit(hlo: str, dense: str):
    def edit(updated: cst.CSTNode) -> cst.CSTNode:
        operand, permutation = (a.value for a in updated.args)
        return cst.parse_expression(f"{hlo}.transpose({_code(operand)}, {dense}({_code(permutation)}))")

    return edit


def _code(node: cst.CSTNode) -> str:
    return cst.Module(body=[]).code_for_node(node)


class _Substitute(cst.CSTTransformer):
    """``expr`` with each ``name`` replaced by ``value``."""

    def __init__(self, name: str, value: cst.BaseExpression) -> None:
        super().__init__()
        self.name = name
        self.value = value

    def leave_Name(self, original_node: cst.Name, updated_node: cst.Name) -> cst.BaseExpression:
        return self.value if original_node.value == self.name else updated_node

    def leave_Attribute(self, original_node: cst.Attribute, updated_node: cst.Attribute) -> cst.BaseExpression:
        # ``np.int32``: the attribute name is no variable.
        return updated_node.with_changes(attr=original_node.attr)

    def leave_Arg(self, original_node: cst.Arg, updated_node: cst.Arg) -> cst.Arg:
        return updated_node.with_changes(keyword=original_node.keyword)


def _plain_value(node: cst.BaseExpression) -> bool:
    """A name, an attribute of one, or a literal number: safe to write more than once."""
    if isinstance(node, (cst.Name, cst.Integer, cst.Float)):
        return True
    if isinstance(node, cst.Attribute):
        return _plain_value(node.value)
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
        return isinstance(node.expression, (cst.Integer, cst.Float))
    return False


#: Expressions with a scope of their own (or, for ``:=``, a binding in the enclosing one).
_OWN_SCOPES = (cst.Lambda, cst.ListComp, cst.GeneratorExp, cst.SetComp, cst.DictComp, cst.NamedExpr)


def _sequence_call(node: cst.BaseExpression, bindings) -> Optional[tuple[cst.BaseExpression, ...]]:
    """The argument of ``tuple(x)`` / ``list(x)`` (one plain positional one), or ``()`` for
    ``tuple()`` / ``list()``, when the rule binds neither name (they are the builtins);
    None for anything else."""
    if not (isinstance(node, cst.Call) and get_full_name_for_node(node.func) in ("tuple", "list")) \
            or "tuple" in bindings or "list" in bindings:
        return None
    if not node.args:
        return ()
    if len(node.args) == 1 and not node.args[0].keyword and not node.args[0].star:
        return (node.args[0].value,)
    return None


def _display_length(node: Optional[cst.BaseExpression]) -> Optional[int]:
    """How many elements a tuple or list display (or ``tuple()`` / ``list()``) holds; None
    for anything else, a starred element included."""
    if isinstance(node, cst.Call) and get_full_name_for_node(node.func) in ("tuple", "list") and not node.args:
        return 0
    if isinstance(node, (cst.Tuple, cst.List)) and not any(isinstance(e, cst.StarredElement) for e in node.elements):
        return len(node.elements)
    return None


def _has_own_scope(node: cst.CSTNode) -> bool:
    found = []

    class _Scopes(cst.CSTVisitor):
        def on_visit(self, n: cst.CSTNode) -> bool:
            if isinstance(n, _OWN_SCOPES):
                found.append(n)
            return not found

    walk.read(node, _Scopes())
    return bool(found)


def _pure_argument(value: cst.BaseExpression) -> bool:
    """Evaluating ``value`` does nothing but build it: names, attributes, literals, and
    lists, tuples or calls of ``Shape``/dtype builders and shape queries made of those (a
    dropped shape's arguments)."""
    if _plain_value(value) or isinstance(value, cst.SimpleString):
        return True
    if isinstance(value, (cst.List, cst.Tuple)):
        return all(not isinstance(e, cst.StarredElement) and _pure_argument(e.value) for e in value.elements)
    if isinstance(value, cst.Call):
        name = get_full_name_for_node(value.func) or ""
        return name.rsplit(".", 1)[-1] in ("array_shape", "tuple_shape", "token_shape", "scalar_shape", "dtype",
                                           "element_type", "dimensions", "numpy_dtype") \
            and all(not a.star and _pure_argument(a.value) for a in value.args)
    return False


class _NotConvertible(Exception):
    """Why a custom call cannot be rewritten faithfully."""


def _unpartial(ctx, rule: cst.BaseExpression) -> cst.BaseExpression:
    """``f`` of ``functools.partial(f, ...)``; anything else as it is."""
    if isinstance(rule, cst.Call) and rule.args and ctx.qualified_name(rule.func) == "functools.partial":
        return rule.args[0].value
    return rule


def _bound_positionally(ctx, rule: cst.BaseExpression) -> int:
    """How many arguments ``partial(f, a, b, key=...)`` binds positionally (2 here)."""
    if isinstance(rule, cst.Call) and rule.args and ctx.qualified_name(rule.func) == "functools.partial":
        return sum(1 for a in rule.args[1:] if a.keyword is None)
    return 0


def _ends_with_return(function: cst.FunctionDef, name: str) -> bool:
    """Whether the last statement of ``function`` is ``return name`` (and no other returns)."""
    statements = list(function.body.body) if isinstance(function.body, cst.IndentedBlock) else []
    last = statements[-1] if statements else None
    if not (isinstance(last, cst.SimpleStatementLine) and len(last.body) == 1 and isinstance(last.body[0], cst.Return)):
        return False
    value = last.body[0].value
    return isinstance(value, cst.Name) and value.value == name and len(_returns_in(function.body)) == 1


def _returns_in(body: cst.CSTNode) -> list[cst.CSTNode]:
    """The ``return`` statements (and ``yield`` expressions) of a function body, nested
    functions and lambdas aside."""
    found: list[cst.CSTNode] = []

    class _Returns(cst.CSTVisitor):
        def visit_Return(self, node: cst.Return) -> None:
            found.append(node)

        def visit_Yield(self, node: cst.Yield) -> None:
            found.append(node)

        def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
            return False

        def visit_Lambda(self, node: cst.Lambda) -> bool:
            return False

    walk.read(body, _Returns())
    return found


def _assigned_names(body: cst.CSTNode) -> set[str]:
    """Names bound anywhere in ``body`` other than by ``def`` (assignments, loops, ``as``)."""
    found: set[str] = set()

    class _Targets(cst.CSTVisitor):
        def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
            found.update(_names_in(node.target))

        def visit_AugAssign(self, node: cst.AugAssign) -> None:
            found.update(_names_in(node.target))

        def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
            found.update(_names_in(node.target))

        def visit_For(self, node: cst.For) -> None:
            found.update(_names_in(node.target))

        def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
            found.update(_names_in(node.target))

        def visit_AsName(self, node: cst.AsName) -> None:
            found.update(_names_in(node.name))

    walk.read(body, _Targets())
    return found


def _raises_only(function: cst.FunctionDef) -> bool:
    """Whether the body is a docstring at most and one ``raise``."""
    statements = _statements(function)
    return statements is not None and len(statements) == 1 and isinstance(statements[0], cst.Raise) and statements[0].exc is not None


def _variants_problem(name: str, variants: dict) -> str:
    """Why a function registered in several ways cannot be converted once for all of
    them; ``variants`` maps (form, arguments bound by functools.partial) to the files."""
    forms = {form for form, _ in variants}
    if len(forms) > 1:
        return f"`{name}` is registered both as a rule taking the translation context and as one taking the XlaBuilder"
    bound = sorted({count for _, count in variants})
    said = ", ".join(map(str, bound[:-1])) + f" and {bound[-1]}"
    return (f"`{name}` is registered with {said} arguments bound by functools.partial in different places, so the "
            "translation context reaches a different parameter in each (at most one of them can have lowered)")

def _sole_return_call(function: cst.FunctionDef) -> Optional[cst.Call]:
    """``call`` when the body is a docstring at most and ``return call``."""
    value = _sole_return(function)
    return value if isinstance(value, cst.Call) else None


def _shape_method_edit(method: str) -> tuple[str, Callable]:
    """What ``shape.method()`` of an XLA shape becomes on the aval it is now: the edit's
    description and the edit (``dimensions()`` -> ``.shape``...)."""
    attr = SHAPE_METHODS[method]
    return f"Shape.{method}() -> aval.{attr}", lambda updated: cst.Attribute(value=updated.func.value, attr=cst.Name(attr))


def _plain_loop_over(loop: cst.CompFor, target: str) -> Optional[str]:
    """``xs`` for a comprehension whose only ``for`` is ``for target in xs`` (no other
    loop, no ``if``, ``xs`` a name)."""
    if loop.inner_for_in is not None or loop.ifs or not isinstance(loop.target, cst.Name) \
            or loop.target.value != target or not isinstance(loop.iter, cst.Name):
        return None
    return loop.iter.value


def _always_raises(function: cst.FunctionDef) -> bool:
    """No ``return`` anywhere in the body (nested functions aside) and a ``raise`` last."""
    if not isinstance(function.body, cst.IndentedBlock) or not function.body.body:
        return False
    last = function.body.body[-1]
    return isinstance(last, cst.SimpleStatementLine) and isinstance(last.body[-1], cst.Raise) \
        and not _returns_in(function.body)


def _sole_return(function: cst.FunctionDef) -> Optional[cst.BaseExpression]:
    """``value`` when the body is a docstring at most and ``return value``."""
    statements = _statements(function)
    if statements is not None and len(statements) == 1 and isinstance(statements[0], cst.Return):
        return statements[0].value
    return None


def _import_bindings(statement: cst.Import | cst.ImportFrom) -> Optional[set[str]]:
    """The local names an import statement binds; None for ``from m import *``."""
    if isinstance(statement.names, cst.ImportStar):
        return None
    bound = set()
    for alias in statement.names:
        if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
            bound.add(alias.asname.name.value)
        else:
            name = alias.name
            while isinstance(name, cst.Attribute):
                name = name.value
            if isinstance(name, cst.Name):
                bound.add(name.value)
    return bound


def _statements(function: cst.FunctionDef) -> Optional[list[cst.BaseSmallStatement]]:
    """The body's small statements less docstrings, or None unless each sits on a simple
    line of an indented body."""
    if not isinstance(function.body, cst.IndentedBlock):
        return None
    statements = []
    for stmt in function.body.body:
        if not isinstance(stmt, cst.SimpleStatementLine):
            return None
        statements += [small for small in stmt.body if not (isinstance(small, cst.Expr) and isinstance(small.value, (cst.SimpleString, cst.ConcatenatedString)))]
    return statements


def _name_nodes(node: cst.CSTNode, name: str) -> list[cst.Name]:
    found: list[cst.Name] = []

    class _Find(cst.CSTVisitor):
        def visit_Name(self, n: cst.Name) -> None:
            if n.value == name:
                found.append(n)

    walk.read(node, _Find())
    return found


class _BoundNames(cst.CSTVisitor):
    """Marks names bound other than by a plain top-level ``name = value``."""

    def __init__(self, scan: "_FunctionScan") -> None:
        super().__init__()
        self.scan = scan

    def visit_Assign(self, node: cst.Assign) -> None:
        if len(node.targets) == 1 and isinstance(node.targets[0].target, cst.Name):
            self.scan.bind(node)
        else:
            for target in node.targets:
                self._mark(target.target)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False  # its own scope (and reported as a nested function)

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._mark(node.target)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self._mark(node.target)

    def visit_For(self, node: cst.For) -> None:
        self._mark(node.target)

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        self._mark(node.target)

    def visit_AsName(self, node: cst.AsName) -> None:
        self._mark(node.name)

    def _mark(self, target: cst.CSTNode) -> None:
        for name in _names_in(target):
            self.scan.rebound.add(name)


def _row_major_of(ctx, layout: cst.BaseExpression, dims: cst.BaseExpression) -> bool:
    """``layout`` is the row-major layout of ``dims`` (see ``_row_major_text``)."""
    return _row_major_text(ctx.module.code_for_node(layout), ctx.module.code_for_node(dims))


def _row_major_text(layout: str, dims: str) -> bool:
    """``layout`` spells ``dims``'s row-major minor_to_major, ``n - 1, ..., 0`` for ``n =
    len(dims)``, in one of the ways extension code wrote it: ``tuple(range(len(dims) - 1,
    -1, -1))`` (or ``list(...)``, a bare ``range``), ``list(reversed(range(len(dims))))``,
    ``tuple(range(len(dims)))[::-1]`` and the like."""
    layout, dims = re.sub(r"\s+", "", layout), re.sub(r"\s+", "", dims)
    count = f"len({dims})"
    descending = (f"range({count}-1,-1,-1)", f"reversed(range({count}))", f"range({count})[::-1]")
    spellings = set(descending)
    for inner in descending:
        spellings.update((f"tuple({inner})", f"list({inner})"))
    spellings.update((f"tuple(range({count}))[::-1]", f"list(range({count}))[::-1]"))
    return layout in spellings


def _names_in(node: cst.CSTNode) -> list[str]:
    if isinstance(node, cst.Name):
        return [node.value]
    if isinstance(node, (cst.Tuple, cst.List)):
        return [n for e in node.elements for n in _names_in(e.value)]
    if isinstance(node, cst.StarredElement):
        return _names_in(node.value)
    return []


def _contains(stmt: cst.CSTNode, node: cst.CSTNode, ctx) -> bool:
    return node is stmt or any(ancestor is stmt for ancestor in ancestors(ctx, node))


def _module_level_functions(body: Sequence[cst.CSTNode]) -> Iterator[cst.FunctionDef]:
    """The functions defined at module level, also in the module's compound statements
    (netket's translation code sits under ``if jax_available:``)."""
    for stmt in body:
        if isinstance(stmt, cst.FunctionDef):
            yield stmt
        elif isinstance(stmt, cst.BaseCompoundStatement) and not isinstance(stmt, cst.ClassDef):
            for block in blocks_of(stmt):
                yield from _module_level_functions(block)


def _avals_from(ctx_name: str, start: int) -> str:
    """The avals of the operands from the ``start``-th on: ``ctx.avals_in[k:]``, or all of them."""
    return f"{ctx_name}.avals_in[{start}:]" if start else f"{ctx_name}.avals_in"


def _shape_edit(kind: str):
    def edit(updated: cst.CSTNode) -> cst.CSTNode:
        args = [a for a in updated.args if a.keyword is None]
        if kind == "array_shape":
            # Without minor_to_major XLA used the row-major default, which is what
            # ffi_lowering derives from the aval when the layout is None.
            return args[2].value if len(args) == 3 else cst.Name("None")
        value = args[0].value
        return value

    return edit


def _snippet(ctx, node: cst.CSTNode) -> str:
    """``node``'s code on one line, cut at 60 characters (ending in ``...``), for a report."""
    return short(ctx.module.code_for_node(node), limit=60)


def _platform_text(text: str) -> str:
    return text.strip("'\"").lower()


def _subscript_key(node: cst.Subscript) -> Optional[cst.BaseExpression]:
    if len(node.slice) != 1 or not isinstance(node.slice[0].slice, cst.Index):
        return None
    return node.slice[0].slice.value
