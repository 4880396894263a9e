"""``removed-jax-api``: move renamed jax names, rewrite removed helpers that have an exact
equivalent, report every other jax name the target lacks.

Each entry below was read in jax's changelog or in the deprecation message of the
release that removed the name, and checked against jax 0.10.2: the replacement imports,
and for a move it is the very object the legacy name served in its last release
(``tests/test_removed_jax_api.py`` compares them). "since" is the first jax release
that has the replacement; for an older ``--target-jax`` the site is left alone. The
entries removed in 0.11.0 were read off jax 0.11.0 and 0.12.1 (Python 3.12 and newer
only: on Python 3.11, jax stops at 0.10.2): a move whose new home a later release
removed in turn goes on to the home the target has, or stops where the target has none
(``until``), and no move is made to a name the installed jax (the target) lacks.

Moved names (safe: the same object under another name)
    ===============================================  ==========================================  =======  ======
    legacy                                           becomes                                     removed  since
    ===============================================  ==========================================  =======  ======
    ``jax.abstract_arrays.ShapedArray``              ``jax.core.ShapedArray``                    0.4.14   0.4.0
    ``from jax.config import config``                ``from jax import config``                  0.4.29   0.4.0
    ``from jax import xla``                          ``from jax.interpreters import xla``        0.4.0    0.4.0
    ``jax.core.Token``                               ``jax.extend.core.Token``                   0.6.0    0.4.36
    ``jax.tree_map`` ``tree_flatten``                ``jax.tree_util.tree_map`` (...)            0.6.0    any
    ``tree_unflatten`` ``tree_leaves``
    ``tree_structure`` ``tree_transpose``
    ``jax.tree_multimap``,                           ``jax.tree_util.tree_map`` (``tree_multimap``  0.3.16   any
    ``jax.tree_util.tree_multimap``                  forwarded every argument to it)
    ``jax.core.Jaxpr`` ``ClosedJaxpr`` ``JaxprEqn``  ``jax.extend.core.*``                       0.6.0    0.4.31
    ``Literal`` ``Var`` ``jaxpr_as_fun``
    ``jax.core.call_p`` ``closed_call_p``            ``jax.extend.core.primitives.*``            0.7.0    0.4.31
    ``jax.core.ConcretizationTypeError``             ``jax.errors.ConcretizationTypeError``      0.7.0    any
    ``jax.core.get_aval``, ``jax.core.get_type``     ``jax.typeof`` (``typeof = get_aval`` in    0.10.0   0.6.0
    (``jax._src.core.get_aval`` too)                 0.6.0; ``get_type`` was ``get_aval``)
    ``jax.abstract_arrays.abstract_token``           ``jax.core.abstract_token`` (the singleton  0.4.14   any
                                                     jax tests with ``is``; deprecated, no
                                                     public successor)
    ``jax.core.mapped_aval`` ``unmapped_aval``       ``jax.extend.core.*``                       0.10.0   0.9.0
    ``jax.ad_checkpoint.checkpoint`` ``remat``       ``jax.checkpoint`` (both; ``jax.remat``,    0.10.0   any
                                                     which the removal message names, is another
                                                     function)
    ``jax.core.TracerArrayConversionError``          ``jax.errors.*``                            <=0.4.24 any
    ``TracerIntegerConversionError``
    ``UnexpectedTracerError``
    ``jax.interpreters.xla.ShapedArray``             ``jax.core.ShapedArray``                    <=0.4.24 any
    ``jax.interpreters.partial_eval.Jaxpr``          ``jax.extend.core.Jaxpr``                   <=0.10.0 0.4.31
    ``jax.interpreters.batching.Array``              ``jax.Array``                               0.10.0   0.4.1
    ``jax.ShapedArray`` (deprecated in 0.4.7)        ``jax.core.ShapedArray``                    0.4.14   0.4.0
    ``jax.batching`` (module; ``from jax.api import  ``jax.interpreters.batching``               0.2.x    any
    *`` re-exported it)
    ``jax.ad_util.Zero`` ``add_jaxvals``             ``jax.interpreters.ad.*`` (jax.ad_util's     <=0.4.24 any
    ``add_jaxvals_p`` ``zeros_like_aval``            own objects, which ad imports)
    ``jax.nn.normalize``                             ``jax.nn.standardize``                      0.4.36   any
    ``jax.numpy.round_``, ``row_stack``              ``jax.numpy.round``, ``vstack``             0.6.0,   any
                                                                                                 <=0.4.24
    ``jax.numpy.trapz``                              ``jax.scipy.integrate.trapezoid``           0.4.24   0.4.16
    ``jax.numpy.in1d(a, b, ...)``                    ``jax.numpy.isin(a, b, ...).ravel()``       0.4.24   any
                                                     (in1d tested the flattened ``a``)
    ``jax.numpy.msort(a)``                           ``jax.numpy.sort(a, axis=0)``               <=0.4.28 any
    ``pltpu.repeat(x, n, axis)``                     ``jax.numpy.concatenate([x] * n,            0.10.2   any
    (``jax.experimental.pallas.tpu``)                axis=axis)`` (0.10.0 defined it as
                                                     ``jnp.tile`` along ``axis``)
    ``jax.treedef_is_leaf``                          ``jax.tree_util.treedef_is_leaf``           0.6.0    any
    ``jax.partial``                                  ``functools.partial`` (jax re-exported it)  0.2.21   any
    ``jax.experimental.pjit.with_sharding_           ``jax.lax.with_sharding_constraint``        <=0.4.24 any
    constraint``
    ``jax.core.AbstractToken`` ``TraceTag``          ``jax.extend.core.*``                       0.10.0   0.10.0
    ``call_impl`` ``subjaxprs``                      (``call_impl`` only for a target before
    ``set_current_trace`` ``take_current_trace``     0.12.0, which removed it there too)
    ``jax.core.Effect`` ``Effects`` ``DebugInfo``    ``jax.extend.core.*`` (deprecated in        0.11.0   0.10.0
    ``DropVar`` ``new_jaxpr_eqn`` ``no_effects``     0.10.0 with "Use jax.extend.core.X";
    ``check_jaxpr`` ``concrete_or_error``            rewritten there on a 0.10 target too;
    ``find_top_trace`` ``gensym`` ``valid_jaxtype``  ``CallPrimitive`` before 0.12.0 only)
    ``get_opaque_trace_state`` ``jaxprs_in_params``
    ``primal_dtype_to_tangent_dtype``
    ``CallPrimitive``, the ``*_DO_NOT_USE`` three
    ``jax.core.InconclusiveDimensionOperation``      ``jax.errors.*``                            0.11.0   0.10.0
    ``JaxprTypeError``
    ``jax.core.abstract_token``                      ``jax.ffi.abstract_token`` (the same        0.11.0   0.11.0
                                                     singleton; a move to jax.core's goes on
                                                     there for such a target)
    ``jax.linear_util`` (module, and its members)    ``jax.extend.linear_util``                  0.4.24   0.4.16
    ``jax.ad.JVPTracer`` ``Zero`` ``defjvp``         ``jax.interpreters.ad.*`` (``jax.ad`` was   0.4.14   any
    ``primitive_jvps`` (...: ``AD_MEMBERS``)         that module; jax 0.10 reuses the name for a
                                                     namespace of new types, left alone)
    ``jax.api.jit`` ``vmap`` ``grad`` ``jacfwd``     ``jax.*`` (aliases: ``API_MEMBERS``)        0.2.21   any
    ``device_put`` ``custom_vjp`` (...)
    ``jax.api.tree_map`` ``tree_flatten`` (...)      ``jax.tree_util.*`` (api.py imported them)  0.2.21   any
    ``jax.api_util.tree_flatten``                    ``jax.tree_util.*`` (re-exports in           <=0.10.2 any
    ``tree_unflatten`` ``treedef_is_leaf``           jax/api_util.py)
    ``jax._src.api.argnums_partial``                 ``jax._src.api_util.argnums_partial``       <=0.10.2 any
                                                     (api.py imported it from there)
    ``jax._src.api_util.shaped_abstractify``         ``jax._src.core.shaped_abstractify`` (the   <=0.5.3  0.5.3
                                                     same function, moved)
    ``jax.numpy.product`` ``cumproduct``             ``jax.numpy.prod`` ``cumprod`` ``all``      <=0.4.28 any
    ``alltrue`` ``sometrue``                         ``any`` (jax bound the aliases to them)
    ``jax.experimental.optimizers`` ``stax``         ``jax.example_libraries.*`` (modules)       <=0.3.16 0.2.25
    ``jax.lax_linalg`` (module)                      ``jax.lax.linalg``                          0.2.x    any
    ``jax.ops.index`` (``index[i, 1:3]``)            ``jax.numpy.s_`` (NumPy's ``s_``; both      0.3.2    any
                                                     return the index as written)
    ``jax._src.numpy.lax_numpy.<name>`` that the     ``jax.numpy.<name>`` (checked on 0.4.30,     <=0.10.2 any
    installed jax's module lacks, ``jax.numpy``      0.5.3, 0.6.2: every public name lax_numpy
    has (``zeros_like``, ``newaxis``, ``inf``)       had was jax.numpy's very object)
    ``jax._src.numpy.util._promote_dtypes``          ``jax._src.numpy.util.promote_dtypes``      0.4.7    0.4.7
    ``_promote_dtypes_complex`` ``_check_arraylike`` &c. (renamed in place: ``NUMPY_UTIL_
    (...: ``NUMPY_UTIL_RENAMED``); lax_numpy's       RENAMED``; lax_numpy's re-exports go there
    re-exports (``LAX_NUMPY_REEXPORTED``)            too)
    ``jax.pxla`` (module)                            ``jax.interpreters.pxla``                   <=0.4.20 any
    ``jax._src.prng`` (module: ``PRNGImpl``,         ``jax._src.random.prng`` (private too)      0.10.2   0.10.2
    ``register_prng``)
    ``jax._src.prng.threefry_2x32``                  ``jax.extend.random.*`` (the same objects)  0.10.2   0.4.28
    ``threefry2x32_p`` ``threefry_prng_impl``
    ``rbg_prng_impl`` ``unsafe_rbg_prng_impl``
    ``jax._src.prng.threefry_seed`` ``_split``       ``jax._src.random.threefry2x32.*``          0.10.2   0.10.2
    ``_fold_in`` ``_random_bits``
    ``jax.interpreters.mlir.func_dialect``           ``jax.extend.mlir.dialects.func`` (its      0.6.0    0.4.25
    (module)                                         star import of that module)
    ``jax.interpreters.xla.Token``                   ``jax.extend.core.Token`` (the class moved  <=0.4.28 0.4.36
                                                     to jax.core in 0.2.26)
    ``jax.interpreters.xla.Device`` (also through    ``jax.Device`` (both ``xc.Device``)         <=0.4.28 0.4.28
    ``jax.xla``)
    ``jax.random.threefry2x32_p``                    ``jax.extend.random.threefry2x32_p``        <=0.4.28 0.4.16
    ``jax.experimental.maps.Mesh``                   ``jax.sharding.Mesh`` (re-exports of the    <=0.4.28 0.4.1
    ``jax.experimental.PartitionSpec``               ``jax.sharding.PartitionSpec`` classes
    ``jax.experimental.pjit.PartitionSpec``          jax.sharding holds; ``maps`` itself goes
                                                     once nothing else of it is used)
    ``jax.experimental.maps.thread_resources``       ``jax.interpreters.pxla.thread_resources``  <=0.4.28 0.4.1
                                                     (the same jax._src.mesh object; that name
                                                     is deprecated from jax 0.8.2)
    ``jax._src.sharding.NamedSharding``              ``jax.sharding.*`` (the classes jax.sharding  <=0.4.14  0.4.1
    ``SingleDeviceSharding``                         exported, defined there until they moved)
    ``jax.interpreters.xla.xb.get_backend``          ``jax.extend.backend.get_backend``          0.4.35   0.5.0
    ``backends`` (also through the private           ``jax.extend.backend.backends``
    ``jax._src.lib.xla_bridge``)
    ``xb.devices`` ``local_devices``                 ``jax.*``
    ``device_count`` ``local_device_count``
    ``default_backend`` ``process_index``
    ``process_count``
    ``pltpu.TPUMemorySpace`` ``TPUCompilerParams``   ``pltpu.MemorySpace`` ``CompilerParams``    0.8.1    0.6.2
    (``jax.experimental.pallas.tpu``)                (jax 0.6.2 binds both names to one class)
    ``pltpu.ANY``, ``pltpu.TPUMemorySpace.ANY``      ``pl.ANY`` (``jax.experimental.pallas``;    0.10.0   0.7.2
                                                     the same member from 0.7.2)
    ``pltpu.delay``                                  ``pl.delay``                                0.10.0   0.10.0
    ``pltpu.semaphore`` ``DeviceIdType``             ``pl.*`` (deprecated in 0.10 with "use       0.11.0   0.6.2
    ``semaphore_read`` ``_signal`` ``_wait``         pl.X instead")
    ``pltpu.HOST``                                   ``pl.HOST``                                 0.12.0   0.7.2
    ``pl.dot``                                       ``jax.experimental.pallas.triton.dot``       0.12.0   0.10.2
    ``pltpu.run_scoped`` ``CostEstimate``            ``pl.run_scoped`` ``CostEstimate``          0.4.35   0.4.35
    ``pl.atomic_add`` (and the other atomics),       ``jax.experimental.pallas.triton.*``        0.10.0   0.7.1,
    ``pl.max_contiguous``                            (Triton-only primitives)                             0.8.1
    ``jax.experimental.pallas.gpu`` (module)         ``jax.experimental.pallas.triton``          0.6.1    0.4.34
    ``plgpu.TritonCompilerParams``                   ``plgpu.CompilerParams`` (the same class)   0.8.1    0.6.2
    ``jax._src.dtypes.bit_width``                    ``jax._src.dtypes.itemsize_bits`` (renamed;  0.10.0   0.10.0
                                                     the same computation, which now rejects
                                                     ``None``)
    ``jax._src.state.primitives.pp_ref``             ``...primitives.pp_ref_var`` (renamed;       0.4.28   0.4.28
                                                     the same ``partial(pp.color, ...)``)
    ``jax.core.canonicalize_shape`` (unsafe:         ``jax._src.core.canonicalize_shape`` (the   0.4.31   0.4.0
    deprecated with no successor named)              same function, private)
    ``jax._src.state.ShapedArrayRef`` in an          ``jax._src.state.AbstractRef`` (the aval of   0.4.6    0.4.6
    ``isinstance`` test or an annotation             a Ref, renamed; a call ``ShapedArrayRef(
                                                     shape, dtype)`` is reported: it is now
                                                     ``AbstractRef(ShapedArray(shape, dtype))``)
    ===============================================  ==========================================  =======  ======

    ``isinstance(x, PositionalSharding)`` (``jax.sharding``'s, removed in 0.7.0 after its
    0.6.0 deprecation; flash-attention bindings' sharding rules tested for it beside
    NamedSharding): nothing makes one any more, so the test is ``False``, and the class
    leaves a tuple of types (``isinstance(x, (PositionalSharding, SingleDeviceSharding))``);
    safe for ``x`` a name or attribute, the import going with the last test. Made or read
    otherwise (``PositionalSharding(devices).reshape(...)``) it stays manual: no public
    sharding has its ``reshape``/``shape``. The same holds for ``ConcreteArray``
    (``jax.core``'s or ``jax.abstract_arrays``', removed in 0.4.36): bridges tested an aval
    for it to read a traced value's ``.val``; no aval is concrete any more, so the test is
    ``False`` and the branch for abstract values runs, as it did under ``jit`` before.
    ``isinstance(x, (C,))`` counts as ``isinstance(x, C)``, and ``not isinstance(x, C)``
    becomes ``True``.

    ``jax.config.update("experimental_xmap_spmd_lowering", ...)`` (and ``..._manual``):
    an option the installed jax no longer has makes ``update`` raise AttributeError, at
    import for a module-level call; these two configured only xmap, which is gone, so the
    statement is dropped (safe). Any other option jax does not know is reported by name.

    ``with jax.spmd_mode("allow_all"):`` (multi-process FFT and MPI drivers, 2023): open-source
    jax stopped reading the option by 0.4.28 (its check was a no-op; 0.5.3 defines it and
    reads it nowhere) and removed it in 0.6.0. The ``with`` goes and its block moves one
    level out (the item alone goes from ``with mesh, jax.spmd_mode(...):``); setting
    ``jax_spmd_mode`` with ``jax.config.update`` is dropped like the xmap options. Safe for
    literal or name arguments; ``as`` a name, it stays manual.

    ``jax.config`` is an object, not a module: its members (methods, and the options set
    on it when jax is imported) are checked on the installed jax's config object, the one
    place where this rule imports jax. A member it lacks is reported
    (``jax.config.disable_omnistaging()``, which raised from jax 0.2.12 on), except
    ``jax.config.enable_omnistaging()`` as a statement of its own: a no-op (it only
    warned) from 0.2.12 until its removal, the call goes (safe; ``pass`` when alone in
    its block). ``jax.config.jax_array`` reads as ``True`` and
    ``jax.config.update("jax_array", True)`` goes: jax 0.4.7 made jax.Array impossible to
    switch off (``update("jax_array", False)`` raised ValueError, and stays reported), and
    jax 0.4.14 removed the option.

    A lowering registered for a platform jax no longer knows
    (``mlir.register_lowering(p, rule, platform="interpreter")``) raises
    NotImplementedError at import; no backend of that name can run the rule, so the
    registration statement is dropped (safe; manual inside a larger expression). Checked
    against the installed jax only.

    Keywords removed from callables jax kept are dropped: ``named_shape=`` of
    ``ShapedArray`` (by 0.5.0; named shapes only carried xmap's named axes), also through
    a moved name of the class; safe when the value is a name or attribute read, otherwise
    unsafe (its expression would no longer run).

    Removed constants are written out (safe: the same value): ``jax.numpy.NINF``,
    ``PINF``, ``NZERO`` and ``PZERO`` (NumPy's floats, re-exported) become ``float('-inf')``,
    ``float('inf')``, ``-0.0`` and ``0.0``; ``batching.not_mapped``
    (public and ``jax._src``; removed after 0.10.0) becomes ``None`` and
    ``batching.NotMapped`` (removed 0.10.0) ``type(None)``, as jax defined them. A bare
    name imported from the module stays reported with its import.

    A member that the new home lacks as well (``jax.xla._force``: ``jax.interpreters.xla``
    has no ``_force``; ``jax.pxla.ShardedDeviceArray``) is reported manual as a whole; its
    module part is not moved alone, which would leave the reference as broken as before and
    unreported, and it is never imported from the new home (that import would fail when
    the module loads). Of a module that moved whole only its own member moves:
    ``jax.pxla.thread_resources.env.physical_mesh`` becomes
    ``thread_resources.env.physical_mesh``, the rest read where it was.

    A moved ``from`` import is rewritten where it stands when every name in it goes to one
    module and module code runs before a later import (``from jax.config import config``
    then ``config.update(...)``): re-added with the later jax imports, it would bind the
    name after the code that reads it. Elsewhere the names join the module's imports.

    ``jax.extend.linear_util`` holds the same members as the old ``jax.linear_util``;
    only ``wrap_init`` is now a wrapper that supplies the ``debug_info`` jax's own
    function requires, so the legacy call ``wrap_init(f, params)`` keeps working.
    ``from jax import abstract_arrays`` is dropped only when every use of it is
    ``abstract_arrays.ShapedArray`` or a rewritten ``abstract_arrays.raise_to_shaped``
    (called, or read as a value); otherwise the import is reported. ``from jax import
    xla`` used only to register translation rules is left to xla-translation-rule, which
    converts them through it and drops it (or reports it, kept for the rules it could not
    convert); with other uses it moves like any other name.

    ``import jax.abstract_arrays`` (a dotted import of a removed module) goes (safe) when
    nothing spells the module again except reads this rule moves in the same run, and
    another plain module-level import of an existing jax module binds ``jax`` too; an
    import under ``if TYPE_CHECKING`` or another removable dotted import is no such
    binding. A suppressed read keeps it.

    A module-level import fallback whose every branch fails on the target (jax-chacha-prng:
    ``from jaxlib.xla_client import XlaOp``, else ``XlaOp = jax.xla.XlaOp``, else ``raise
    ImportError``) stops the module importing although each statement sits in a guard. It
    goes whole (safe) when nothing else reads the names it binds and its branches hold
    only imports, reads of jax names, ``pass`` and a final ``raise``; a call among them
    (``jax.config.update``) keeps it. When its names are read, it is reported (manual).
    The custom-call builders' fallbacks go with their migrated calls (custom-call-api).

Type names (safe in annotations only)
    ``jax.random.KeyArray``, ``jax.random.PRNGKeyArray`` (removed 0.4.24) and
    ``jax.numpy.DeviceArray`` (also ``jax.interpreters.xla.DeviceArray``, ``_DeviceArray``;
    removed 0.4.14) and ``jax.interpreters.pxla.ShardedDeviceArray`` (deprecated beside it
    for ``jax.Array``, which subsumed both in jax 0.4.1, and removed with it) become
    ``jax.Array`` inside an annotation, as their deprecation messages advise; also inside a
    module-level type alias ``JaxArray = Union[DeviceArray, ShardedDeviceArray]`` (or
    ``Optional[...]``) that the module reads only in annotations and other such unions:
    ``isinstance`` refused a subscripted ``typing.Union`` before Python 3.10, so the alias
    served annotations (scico's ``typing.py``). Anywhere else (``isinstance``) they are manual:
    ``jax.Array`` also matches tracers and raw ``uint32`` keys; test a typed key with
    ``jax.dtypes.issubdtype(x.dtype, jax.dtypes.prng_key)``. An imported name moves only
    when every use of it is in an annotation. ``isinstance(x, DeviceArray)`` has no single
    faithful spelling: in the last releases that had it, ``DeviceArray`` was ``jax.Array``
    itself (tracers match), while code written before the ``jax.Array`` switch (0.4.1)
    relied on tracers *not* matching (``isinstance(x, jax.Array) and not isinstance(x,
    jax.core.Tracer)``); which one a module meant is not in its text. Beside
    ``jax.core.Tracer`` in a tuple of types (``isinstance(x, (DeviceArray, core.Tracer))``,
    funsor's ``(onp.ndarray, DeviceArray, Tracer)``) the question does not arise: the union
    matched concrete arrays and tracers in every release, which is what ``jax.Array``
    matches, so there it moves (safe). A key type beside Tracer stays manual (jax.Array
    also matches raw ``uint32`` keys).

    A name jax removed with no replacement (``xla.XlaOp``, ``xla.TranslationContext``,
    ``jax.core.Shape``) inside a parameter's or a return annotation of an undecorated
    function drops that annotation (safe): evaluated when the function is defined, it
    fails (``AttributeError``), and under ``from __future__ import annotations`` type
    checkers and ``typing.get_type_hints`` fail on it; it has no other effect. femr's
    translation rules carried 37 such annotations (``x=None`` keeps its default). A local
    variable's annotation (``res: xla.XlaOp = ...`` in a function) is never evaluated and
    goes too (``res = ...``). Manual instead: a decorated function's (``singledispatch``'s
    ``register`` and runtime type checkers read annotations), a class's or a module's
    variable annotation (a dataclass or NamedTuple field, the module's
    ``__annotations__``), an annotation that also names something another rule
    reports (``xla_client.XlaBuilder``: xla-client-import keeps the import for it), and
    one naming what jaxlib binds only with a GPU plugin (jax-triton's ``->
    triton_kernel_call_lib.TritonKernel``): it resolves where the code runs. ``XlaOp``
    among a ``typing.TypeVar``'s constraints or as its ``bound=`` (kfac-jax:
    ``TypeVar("ArrayOrXla", Array, xla.XlaOp)``, the values its tag primitives' rules pass
    through; also spelt ``jax.xla.XlaOp``) becomes ``ir.Value``, what MLIR lowering rules receive (safe: the
    constraints inform type checkers only, and a TypeVar needs two of them).

Removed helpers rewritten as calls
    =========================================  ======================================  =======  ======  ======
    legacy call                                becomes                                 removed  since   safety
    =========================================  ======================================  =======  ======  ======
    ``batching.moveaxis(x, src, dst)``         ``jax.numpy.moveaxis(x, src, dst)``     0.9.0    any     safe
    ``jax.random.shuffle(key, x, axis)``       ``jax.random.permutation(key, x, axis,  <=0.5.3  0.4.0   safe
                                               independent=True)``
    ``jax.dlpack.to_dlpack(x)``                ``x.__dlpack__()``                      0.7.0    0.4.16  safe
    ``jax.device_put_replicated(x, devices)``, ``_ccmigrate_device_put_replicated``,   0.10.0   0.6.0   safe
    ``device_put_sharded(shards, devices)``    ``_ccmigrate_device_put_sharded``: the
                                               arrays jax's last implementation built,
                                               on public APIs
    ``ad.Zero.from_value(v)`` (also            ``ad.Zero(jax.typeof(v))``              0.4.35   0.6.0   safe
    ``jax._src.ad_util.Zero``'s)
    ``ad.Zero.from_primal_value(v)``           ``ad.Zero(jax.typeof(v)                 0.10.0   0.6.0   safe
                                               .to_tangent_aval())``
    ``jax.core.raise_to_shaped(aval)``,        ``aval``                                0.6.0    0.4.36  safe
    ``jax._src.core.raise_to_shaped(aval)``
    ``jax.abstract_arrays.raise_to_shaped``    ``aval`` (it was ``core.raise_to_shaped``)  0.4.14   0.4.36  safe
    ``jax.core.full_lower(x)``                 ``x``                                   0.6.0    0.4.36  safe
    ``jax.lax.tie_in(x, y)``                   ``y``                                   0.4.29   any     safe [1]
    ``jax.interpreters.xla.abstractify(x)``    ``jax.typeof(x)``                       0.7.0    0.6.0   unsafe
    ``jax.lax.zeros_like_array(x)``            ``jax.lax.full_like(x, 0)``             0.9.0    any     safe
    ``jax._src.ad_checkpoint                   ``jax.lax.optimization_barrier(x)``     >0.4.31  0.4.32  safe
    ._optimization_barrier(x)``
    ``jax.ad_util.zeros_like_jaxval(x)``       ``jax.lax.full_like(x, 0)`` (the zeros  <=0.4.24 any     safe
                                               of x's aval)
    ``jax.abstract_arrays.make_shaped_array    ``ShapedArray(np.shape(x), dtypes.      0.4.14   0.4.0   safe [2]
    (x)``                                      canonicalize_dtype(dtypes.result_type
                                               (x)))``, its definition
    ``jax.ops.index_update(x, idx, y)``        ``jnp.asarray(x).at[idx].set(y)``       0.3.2    0.4.0   safe [3]
    ``index_add`` ``index_mul`` ``index_min``  ``.add`` ``.multiply`` ``.min`` ``.max``
    ``index_max``
    ``with jax.experimental.enable_x64(v):``   ``with jax.enable_x64(v):`` (``True``   0.9.0    0.8.0   safe
    ``with ...disable_x64():``                 when absent; ``False`` for disable)
    ``ad.primitive_jvps[p] = partial(ad.       ``ad.defjvp(p, *rules)``                0.10.0   any     safe
    standard_jvp, rules, p)``
    ``ad.primitive_jvps[p] = partial(ad.       ``ad.deflinear2(p, T)`` (the two        <=0.10.2 any     safe
    linear_jvp, p)`` beside ``ad.primitive_    statements become one)
    transposes[p] = T``
    ``mlir.full_like_aval([ctx,] v, aval)``    ``mlir.ir_constant(np.broadcast_to(     <0.4.28  any     safe
                                               np.array(v, aval.dtype), aval.shape))``
    ``mlir.flatten_lowering_ir_args(xs)``      ``mlir.ir_tree_registry.flatten(xs)     0.7.0    0.4.31  safe
    (``jax._src``'s: removed 0.4.31)           [0]`` (target < 0.10.2: ``mlir.
                                               flatten_ir_values(xs)``)
    ``jax._src.core.AxisPrimitive(name)``      ``jax.extend.core.Primitive(name)``     0.4.36   0.4.36  safe [5]
    (``jax.core``'s up to 0.4.x)
    ``jax.lax.standard_primitive(shape_rule,   ``_ccmigrate_standard_primitive(...)``  0.4.24   0.4.36  safe [4]
    dtype_rule, name)`` (``jax.lax.lax``'s)    (a module-level helper, public APIs)
    ``jax.lax.naryop_dtype_rule`` (as above)   ``_ccmigrate_naryop_dtype_rule``        0.4.24   0.4.36  safe [4]
    ``xmap(f, in_axes, out_axes,               ``_ccmigrate_xmap(...)`` (the same      0.4.31   0.6.1   safe [6]
    axis_resources={'x': 'x'})`` (one named    arguments): ``f`` on each slice in
    axis, first where it appears)              ``jax.shard_map`` over the mesh
    ``with maps.mesh(devices, axis_names):``   ``with jax.sharding.Mesh(devices,       0.4.0    0.4.1   safe [7]
    (no ``as``)                                axis_names):``
    =========================================  ======================================  =======  ======  ======

    * ``moveaxis``: the batching helper returned ``x`` when ``src == dst`` and otherwise
      transposed with the permutation that ``jax.numpy.moveaxis`` builds (negative axes
      taken modulo the rank in both); the values, shapes and dtypes agree for arrays and
      tracers, including ``src == dst`` and negative axes. Keywords ``x=``/``src=``/
      ``dst=`` become ``a=``/``source=``/``destination=``.
    * ``to_dlpack(x)`` (and ``to_dlpack(x, stream=s)``) and ``x.__dlpack__()`` call the
      same function for a single-device ``jax.Array`` and return the same legacy
      ``"dltensor"`` capsule, which every consumer of ``to_dlpack``'s result accepts.
      Other arguments (``take_ownership``, ``src_device``) are manual.
    * ``Zero.from_value(v)`` was ``Zero(raise_to_shaped(get_aval(v)))``: the primal
      aval, kept as it was (``from_primal_value``, its successor, used the tangent aval,
      which is ``float0`` for integer values; it is gone from 0.10.2 too, and its calls
      become ``Zero(jax.typeof(v).to_tangent_aval())``, its own body with ``get_aval``
      spelt ``jax.typeof``).
    * ``raise_to_shaped`` and ``full_lower`` are no-ops from jax 0.4.36 on (their
      deprecation messages); a ``weak_type`` argument makes the site manual. Read as a
      value, not called (``map(core.raise_to_shaped, avals)``), each becomes the identity
      its calls are: ``lambda aval: aval`` / ``lambda x: x``, parenthesised inside a larger
      expression.
    * [1] ``tie_in`` ignored ``x``: dropping it is safe when ``x`` is a name, attribute or
      literal; another expression is evaluated no more, so that site is unsafe.
    * [2] ``make_shaped_array`` read its argument twice; written out, it is read twice
      too, so only a name, attribute or literal (or one subscripted by such) is expanded;
      another argument (``make_shaped_array(f(*args)[0])`` in an abstract evaluation
      rule) goes to a module-level helper with that body, which evaluates it once.
    * [3] jax 0.2.22 deprecated the ``jax.ops.index_*`` helpers for ``x.at[idx].<op>(y)``;
      they accepted any array-like ``x`` (a NumPy array too), so the rewrite converts it
      with ``jnp.asarray`` unless it is the result of a ``jax.numpy``/``lax`` call.
      ``indices_are_sorted=``/``unique_indices=`` carry over; an index written
      ``jax.ops.index[...]`` goes into ``.at[...]`` as written. A helper read as a value
      (``jax_fn = jax.ops.index_update``, aesara) becomes ``lambda x, idx, y,
      indices_are_sorted=False, unique_indices=False: jnp.asarray(x).at[idx].set(y, ...)``,
      the helper's signature and defaults.
    * ``abstractify`` raised ``TypeError`` for a tracer, ``jax.typeof`` returns its aval;
      jax's removal message offers it "in most cases", hence unsafe.
    * ``enable_x64(new_val=True)``/``disable_x64()`` were generator context managers
      around ``config.enable_x64(new_val)``/``(False)``, the state ``jax.enable_x64`` is;
      only their ``with`` form is rewritten (they also worked as decorators).
    * ``defjvp(p, *rules)`` is, in every release, ``primitive_jvps[p] = partial(standard_jvp,
      rules, p)`` after asserting ``p`` is a single-result primitive, the only kind
      ``standard_jvp`` serves (it bound the primitive and reduced the tangents onto one
      zero). A literal tuple of rules is passed element by element, any other as ``*rules``.
    * ``deflinear2(p, T)`` is, in every release, ``primitive_jvps[p] = partial(linear_jvp, p)``
      and ``primitive_transposes[p] = partial(linear_transpose2, T)``; ``linear_transpose2``
      calls ``T(ct, *args, **params)`` unchanged and answers a symbolic-zero cotangent
      itself (zeros for the linear inputs), where ``T`` would have received ``ad.Zero``.
      The two statements must sit in one block, with only definitions and registrations
      (``def``, ``class``, ``p.def_*(...)``, ``register*(...)``) between them, which cannot
      have differentiated ``p`` meanwhile; the call replaces the later one (where ``T`` is
      bound). A lone ``partial(linear_jvp, p)`` is manual, and so is a pair with other code
      between.
    * ``full_like_aval`` built ``ir_constant(np.array(value, aval.dtype))`` and broadcast it
      to ``aval.shape`` (``BroadcastOp``, later ``broadcast_in_dim`` with no dimensions; the
      context argument, added in 2023, only served dynamic shapes). ``ir_constant`` of a
      zero-stride NumPy array emits the very same scalar ``stablehlo.constant`` and
      ``broadcast_in_dim`` (checked on jax 0.4.28 and 0.10.2), so a kernel's scratch buffer
      stays one broadcast scalar, not a literal of its size. An aval written
      ``ShapedArray(shape, dtype)`` gives its shape and dtype directly; a name, attribute or
      ``x[i]`` is read twice; any other expression is manual.
    * ``zeros_like_array(x)`` was defined as ``full_like(x, 0)`` up to its removal (jax's
      message suggests ``jax.numpy.zeros_like``; ``full_like`` is the body itself).
    * ``flatten_lowering_ir_args`` was, from jax 0.4.31 until its removal, an alias of
      ``flatten_ir_values`` (a loop appending each ``ir.Value`` and extending by any other
      element); the private function of that name, a ``util.flatten`` of the same, went in
      0.4.31. jax 0.10.2 deprecates ``flatten_ir_values`` for ``ir_tree_registry.flatten``
      (which it now calls, flattening lists, tuples and op result lists): the same for
      what lowering rules hold (values, and lists or tuples of them), but a lazy iterator
      would be one leaf there, so a generator or ``map(...)`` argument is wrapped in
      ``list(...)``.

    * [4] jax.lax re-exported both internals of jax._src up to 0.4.23 (deprecated from
      0.4.18); the first custom-call tutorials (2020) built their primitive with them.
      ``standard_primitive`` made a ``Primitive`` run by ``xla.apply_primitive``, whose
      abstract evaluation was ``ShapedArray(shape_rule(*avals, **params),
      dtype_rule(*avals, **params))``, weakly typed when every operand was (0.4.23's
      ``_standard_weak_type_rule``); it also registered a translation rule, which jax
      removed with the XlaBuilder: a ``translation_rule`` argument other than ``None``, a
      fourth positional argument (whose meaning changed across releases),
      ``weak_type_rule=`` or ``named_shape_rule=`` make the site manual.
      ``multiple_results=`` (which the tutorial passed) sets the primitive's flag and makes
      the rules give one shape and dtype per output. ``naryop_dtype_rule(result_dtype,
      accepted_dtypes, name, *avals)``, mostly read as a value in a ``partial``, checked
      each operand's dtype against the types accepted at its position and that all were
      the same (``require_same=``), then returned ``result_dtype(*avals)``; the helper
      makes the same checks (raising ``TypeError``) on ``jax.dtypes.issubdtype``. Both
      helpers are written here, on ``jax.extend.core.Primitive`` (hence jax 0.4.36).

    * [5] ``AxisPrimitive``'s bind looked for the traces of the named axes its jaxpr
      parameters used (``used_axis_names``) and bound there; with stackless tracing every
      primitive binds to the current trace, and jax 0.4.36 removed the class and made each
      of its own (``cond_p``, ``while_p``, ``scan_p``, ``psum_p``, ``pjit_p``...) a plain
      ``core.Primitive`` (read in the 0.4.35 and 0.4.36 sources). A subclass
      (``class P(core.AxisPrimitive)``) gets the same base.

    * [6] jax's custom-op tutorial (2023) and its many copies ran an RMS-norm primitive
      with no batching rule under ``xmap(rms_norm, in_axes=(("x", None, None, None),
      (None, None)), out_axes=("x", None, None, None), axis_resources={"x": "x"})``
      inside ``with Mesh(jax.local_devices(), ("x",)):``, one slice of the batch per
      device: xmap traced the function without the named axis and each device ran it on
      its slice (read in the 0.4.30 source). ``_ccmigrate_xmap`` takes the same
      arguments and does that with ``jax.shard_map`` (public from 0.6.1) over the mesh
      ``with mesh:`` set, read when the function is called as xmap read it (or the one
      ``jax.set_mesh`` set); a device holding several slices maps the function over them
      with ``jax.lax.map`` (xmap 0.4.30 failed there). Compared with xmap on jax 0.4.30,
      four CPU devices: the primitive sees the same per-device shapes, the results agree
      to float rounding. Rewritten only with literal axes, one named axis on one mesh
      axis, first in each argument it maps and in every result (``in_axes`` one entry
      per argument, or one entry alone, ``["batch", ...]``, that xmap took for every
      argument; ``out_axes`` one entry for all results, or a tuple or list of entries, one
      per result); a module that calls a
      collective (``psum``, ``all_gather``, ``axis_index``...) gets it as unsafe, since
      xmap reduced over every slice and the helper over the devices. The config options
      ``experimental_xmap_spmd_lowering(_manual)`` go (below).
    * [7] ``maps.mesh`` was a generator context manager whose body was ``with
      Mesh(devices, axis_names): yield`` (mesh-transformer-jax's training scripts enter
      it); entering the Mesh itself sets the same physical mesh for pjit and for
      ``thread_resources``. It yielded None where the Mesh returns itself, so ``with ...
      as m:`` stays manual. jax 0.8 deprecates ``with mesh:`` (a DeprecationWarning) for
      ``jax.set_mesh``, which does not set the physical mesh such code reads.

    ``masking.defnaryop(p)``, ``masking.defvectorized(p)`` and ``masking.masking_rules[p]
    = rule`` (``shape_rules``, ``shape_parameterized_primitive_rules``) registered rules for
    jax.mask's interpreter, which jax deleted with ``jax.mask`` and ``jax.shapecheck`` in
    0.3.16: the module no longer imports, and nothing has read those tables since. Each
    such statement, alone on its line with plain arguments, goes (safe), and the import of
    ``masking`` with the last of them; any other use of the module stays manual.

    ``@jax.custom_transforms`` on a module-level function whose every derivative rule is a
    module-level ``jax.defjvp(f, *rules)`` statement (jax.api's, removed in 0.2.12) becomes
    ``@jax.custom_jvp`` with ``f.defjvps(*rules)``: defjvp summed ``rule(g, ans, *args)``
    over the arguments being differentiated, skipping a symbolic-zero tangent; defjvps
    calls the same rules the same way but on instantiated zeros for the other arguments.
    With one positional parameter and one rule nothing else can be differentiated when the
    rule runs, so that is safe (jax's issue #1052 square root, copied widely); more
    arguments are unsafe (a rule giving NaN or inf on a zero tangent would now count). A
    function also handed to ``defvjp``/``defjvp_all``/``defvjp_all``, or to a ``defjvp``
    that is not a module-level statement, stays manual; the imports of
    ``custom_transforms``/``defjvp`` go with their last use.

    ``jax.extend.core.ShapedArray`` never existed (``from jax.extend import core`` then
    ``core.ShapedArray`` raises ``AttributeError`` on every release, typically once
    ``from jax import core`` was switched to ``jax.extend`` for ``Primitive``). It becomes
    ``jax.core.ShapedArray`` (minimum jax 0.4.0), safe: every ShapedArray jax ever exported
    (``jax.abstract_arrays``, ``jax.interpreters.xla``, ``jax.core``) is that one class, so
    the name has no other reading; ``core.Primitive`` beside it stays on ``jax.extend.core``.

    ``jax.core.raise_to_shaped_mappings[T] = handler`` (custom abstract values of quantum
    and tensor-network frontends) goes, safe from target jax 0.4.36 on: jax's removal
    message says the table "is unused as of jax v0.4.36" (raise_to_shaped became a no-op),
    and 0.6.0 removed it, so the line only fails. A statement alone in its block becomes
    ``pass``; other reads of the table stay manual.

    ``jax.interpreters.batching.BatchTracer`` and ``BatchTrace`` have no public successor
    (gone by 0.10.2; a JVP rule testing ``type(t) is batching.BatchTracer``, as tfc's do).
    The very classes live on in ``jax._src.interpreters.batching``, which is offered as an
    unsafe move: equivalent on the target jax, but private, so it may change without
    notice; a batching rule or a ``jax.core.Tracer`` check needs no private name.

    Without ``--unsafe-fixes`` an unsafe site is reported as manual, its message naming the
    fix that flag would apply: the site stays, and the report says why.

    A call with ``*args``/``**kwargs`` or unknown keywords, and a use that is not a call
    (``f = batching.moveaxis``), is manual. An imported helper
    (``from jax.interpreters.batching import moveaxis``) loses its import only when
    every use is rewritten.

Unused imports of removed names (safe)
    ``from jax.experimental import maps`` or ``from jaxlib.xla_client import ops``
    that nothing in the module reads (nor names in a string, as ``__all__`` does) only
    makes the module fail at import: the name goes from the import. So does one whose
    name the module binds again before anything can read it (mpi4jax 2020: ``from
    jax.lax.lax import create_token_p``, then ``create_token_p = Primitive(...)``): only
    imports and undecorated ``def`` statements that do not spell it outside their bodies
    come between the import and the new binding (a function reads it when called, after the
    module has run), and the new binding is a plain assignment or a ``def``/``class``;
    likewise an import at the top level of a function body followed in that body by such
    a binding (``from jaxlib.xla_client import ops`` then ``ops = factory()``).

Everything else (manual)
    Any import of, or dotted use through an import of, a ``jax.*``/``jaxlib.*`` name that
    the installed jax does not define is reported on its line, e.g. ``jax.core.ConcreteArray
    does not exist in the installed jax 0.10.2``, with guidance where jax gave some
    (``GUIDANCE``). Names that other rules migrate (``jax.core.Primitive``,
    ``jaxlib.hlo_helpers``, ``jaxlib.mhlo_helpers``, ``jax.extend.ffi``,
    ``jax.lib.xla_client``/``xla_bridge``/``xla_extension``, the ``jaxlib.xla_client``
    members ``ops``, ``Shape``, ``register_custom_call_target`` (its ``XlaBuilder``,
    ``XlaOp``... are reported here), ``jaxlib.xla_extension`` (these last two dropped here
    when nothing reads them),
    ``jax.interpreters.mlir.hlo``, the translation-rule names of ``jax.interpreters.xla``)
    are left to them, but for a star import of such a module that jax removed
    (``from jaxlib.hlo_helpers import *``), which names nothing for them to follow: it is
    reported here (jax.extend.ffi's rule reports its own).

    Existence is decided from the installed jax's *source* (``_installed_jax``), never by importing it (but for
    the members of the ``jax.config`` object, above): the
    package directory comes from ``importlib.util.find_spec`` (which does not import
    jax), ``jax.a.b`` maps to ``jax/a/b.py`` or ``jax/a/b/__init__.py``, and a module's
    names are what it binds at top level (``def``, ``class``, assignments, imports,
    ``__all__``, one level of ``import *``, minus top-level ``del``; the attributes
    every module has, ``__file__``, ``__dict__``..., always exist). A name in the
    module's ``_deprecations`` table with no object is missing; a module ``__getattr__``
    built by jax's ``deprecation_getattr`` serves only that table. Any other
    ``__getattr__``, a compiled module, or a file that does not parse counts as "the name
    exists": a doubt never produces a finding. The compiled MLIR bindings (``ir``,
    ``passmanager``, ``rewrite``) are read from the ``.pyi`` stubs jaxlib generates with
    them, where it ships them. The catch-all runs only when
    ``--target-jax`` is the installed release, the only one whose source is at hand.
    jaxlib's ``gpu_*`` modules bind some names only when a GPU plugin is installed
    (``_cuda_triton = import_from_plugin("cuda", "_triton")``, then ``if _cuda_triton:
    TritonKernel = ...``): those names, and the members of the plugin module itself, are
    missing where jaxlib finds no such plugin (it is asked, as those modules ask it), and
    reported saying so; with the plugin installed they exist. A member read through a
    module that moved (``jax.xla.DeviceArray``) gets the guidance of its name in the new
    home. An attribute the module itself sets at module level on one of jax's modules
    (jax2onnx's ``jax.nn.gelu_p = Primitive("jax.nn.gelu")``) is reported as the module's
    own: it exists once that statement has run, whatever jax defines.

Left alone
    Sites inside compatibility guards (``try``/``except ImportError``, version tests,
    ``hasattr``, also on the left of ``and``/``or``, and flags bound once to a version
    test, ``JAX_GE_0_8_2 = JAX_VERSION >= Version("0.8.2")``); a test read on the target
    leaves only the branch the target does not take. A missing name behind a test whose
    outcome on the target is not read (``if hasattr(jax, "ffi"):``, the name being compiled)
    is left too, but reported manual: that branch may run there and fail.

What the kernel receives afterwards
    Unchanged: none of these names is a custom call or its configuration.

Before::

    from jax.abstract_arrays import ShapedArray
    from jax.interpreters import ad, batching
    import jax

    def jvp(x, d, t):
        return batching.moveaxis(x, d, 0), ad.Zero.from_value(t), jax.tree_map(f, x)

After::

    from jax.interpreters import ad
    import jax
    from jax.core import ShapedArray
    from jax.numpy import moveaxis
    from jax.tree_util import tree_map

    def jvp(x, d, t):
        return moveaxis(x, d, 0), ad.Zero(jax.typeof(t)), tree_map(f, x)
"""

from __future__ import annotations

import dataclasses
import re
from functools import lru_cache
from typing import Callable, Optional, Union

import libcst as cst
import libcst.matchers as cstm
from libcst.helpers import get_full_name_for_node

from codemods import walk
from codemods.context import import_line
from codemods.rule import Rule, Safety
from codemods.rules._installed_jax import awaited_plugins, first_missing, installed_version
from codemods.rules._shared import (
    GUARD_EXCEPTIONS,
    SPACED_COMMA,
    TIGHT_EQUAL,
    bind_arguments,
    calls_in,
    caught_exceptions,
    compatibility_guard,
    dotted_names,
    drop_binding_if_unused,
    head_name,
    import_without,
    is_called,
    short,
    member_spelling,
    one_line,
    parent,
    undecided_guard,
    version_text,
)

ANY = (0, 0, 0)


@dataclasses.dataclass(frozen=True)
class Move:
    """``legacy`` names the same object as ``new`` (from jax ``since`` on)."""

    new: str
    since: tuple[int, ...]
    #: The release that removed it; empty for a name jax never had.
    removed: str
    #: A module: its members move with it (``jax.linear_util.wrap_init``).
    module: bool = False
    #: Safe only in an annotation; elsewhere a manual finding with this guidance.
    annotation_only: str = ""
    #: Also safe as an element of a tuple of types that holds ``jax.core.Tracer``: what
    #: the old name matched plus tracers is what the new one matches.
    beside_tracer: bool = False
    #: Also safe as the class an ``isinstance`` test names (alone or in its tuple): the
    #: new class is what the old one stood for, though it is made another way.
    type_test: bool = False
    #: Why the new name is equivalent, when it is not literally the same object.
    note: str = ""
    #: Set when the new name is only presumably what was meant: the change is unsafe.
    unsafe: str = ""
    #: The release that removed ``new`` in turn, with no further home: from it on the site
    #: has no move (``jax.extend.core.call_impl``, gone in 0.12.0).
    until: Optional[tuple[int, ...]] = None


#: jax._src.numpy.util's helpers that lost their leading underscore in jax 0.4.7.
NUMPY_UTIL_RENAMED = (
    "check_arraylike", "promote_args", "promote_args_inexact", "promote_args_numeric", "promote_dtypes",
    "promote_dtypes_complex", "promote_dtypes_inexact", "promote_dtypes_numeric", "promote_shapes",
)
#: The ones jax._src.numpy.lax_numpy re-exported (``from jax._src.numpy.util import ...``).
LAX_NUMPY_REEXPORTED = (
    "check_arraylike", "promote_args", "promote_args_inexact", "promote_dtypes", "promote_dtypes_inexact", "promote_shapes",
)

#: Members of the old ``jax.ad`` (jax.interpreters.ad) that jax.interpreters.ad still has.
AD_MEMBERS = (
    "JVPTrace", "JVPTracer", "UndefinedPrimal", "Zero", "add_jaxvals", "add_jaxvals_p", "add_tangents",
    "defbilinear", "defjvp", "defjvp2", "deflinear", "deflinear2", "get_primitive_transpose",
    "instantiate_zeros", "is_undefined_primal", "jvp", "linearize", "primitive_jvps", "primitive_transposes",
    "zeros_like_aval",
)

#: Functions of the old ``jax.api`` module that jax still exports at the top level.
API_MEMBERS = (
    "jit", "vmap", "pmap", "grad", "value_and_grad", "jacfwd", "jacrev", "hessian", "jvp", "vjp", "linearize",
    "linear_transpose", "make_jaxpr", "eval_shape", "device_put", "device_get", "devices", "local_devices",
    "device_count", "local_device_count", "process_index", "host_id", "host_count", "custom_jvp", "custom_vjp",
    "checkpoint", "remat", "named_call", "disable_jit", "ShapeDtypeStruct",
)

#: typing's unions, whose subscripts a module-level type alias assigns.
_TYPING_UNIONS = frozenset({"typing.Union", "typing.Optional", "typing_extensions.Union",
                            "typing_extensions.Optional"})

#: jax's tracer base class, by the names a module may read it through.
_TRACER_NAMES = frozenset({"jax.core.Tracer", "jax._src.core.Tracer"})

_KEY_GUIDANCE = ("outside annotations jax.Array also matches tracers and raw uint32 keys; "
                 "test a typed key with jax.dtypes.issubdtype(x.dtype, jax.dtypes.prng_key)")
_DEVICE_ARRAY_GUIDANCE = ("outside annotations jax.Array also matches tracers; "
                          "use isinstance(x, jax.Array) only if tracers may pass")

PALLAS = "jax.experimental.pallas"
#: Pallas's Triton atomics, which ``pl`` exported until they moved to its Triton module.
PALLAS_ATOMICS = tuple(f"atomic_{op}" for op in ("add", "and", "cas", "max", "min", "or", "xchg", "xor"))

#: jax.numpy's implementation module, which held most of its functions until they moved
#: to other private modules (identity checked on jax 0.4.30, 0.5.3 and 0.6.2: every public
#: jax.numpy name lax_numpy had was the very object jax.numpy exported).
PRIVATE_NUMPY = "jax._src.numpy.lax_numpy"


@lru_cache(maxsize=None)
def _private_numpy_move(legacy: str) -> Optional[Move]:
    """``jax._src.numpy.lax_numpy.zeros_like`` (gone from that module) -> ``jax.numpy.zeros_like``."""
    if not legacy.startswith(PRIVATE_NUMPY + "."):
        return None
    member = legacy[len(PRIVATE_NUMPY) + 1:]
    if "." in member or member.startswith("_"):
        return None
    if first_missing(legacy) != legacy or first_missing(f"jax.numpy.{member}") is not None:
        return None
    return Move(f"jax.numpy.{member}", ANY, "0.10.2 or earlier",
                note="the object jax.numpy exports, which jax's private lax_numpy held until it moved inside jax")


class _Moves(dict):
    """The table, plus the members jax.numpy's private implementation module lost (found
    on the installed jax when asked for; iterating gives the table alone)."""

    def get(self, key, default=None):
        found = super().get(key)
        return found if found is not None else (_private_numpy_move(key) or default)

    def __contains__(self, key) -> bool:
        return super().__contains__(key) or _private_numpy_move(key) is not None

    def __getitem__(self, key):
        found = super().get(key)
        if found is None:
            found = _private_numpy_move(key)
            if found is None:
                raise KeyError(key)
        return found


MOVED: dict[str, Move] = _Moves({
    "jax.abstract_arrays.ShapedArray": Move("jax.core.ShapedArray", (0, 4, 0), "0.4.14"),
    # The top-level alias jax 0.4.7 deprecated (jax#15263) in favour of jax.core.ShapedArray.
    "jax.ShapedArray": Move("jax.core.ShapedArray", (0, 4, 0), "0.4.14"),
    # ``from jax.api import *`` re-exported the interpreter module api.py imported.
    "jax.batching": Move("jax.interpreters.batching", ANY, "0.2.x", module=True),
    # jax/interpreters/mlir.py: ``from jax._src.lib.mlir.dialects import func as func_dialect``,
    # jaxlib's module, whose public members jax.extend.mlir.dialects.func star-imports.
    "jax.interpreters.mlir.func_dialect": Move("jax.extend.mlir.dialects.func", (0, 4, 25), "0.6.0 (after 0.5.3)",
                                               module=True, note="it star-imports the func dialect module "
                                               "mlir.func_dialect was: the same ops"),
    # jax/__init__.py: ``from jax.interpreters import pxla as pxla`` (deprecated in 0.4.x).
    "jax.pxla": Move("jax.interpreters.pxla", ANY, "0.4.20 or earlier", module=True),
    # jax 0.10.2 made jax._src.random a package: the private jax._src.prng (PRNGImpl,
    # register_prng, what PRNG extensions import) is jax._src.random.prng; its threefry and
    # rbg parts went to modules of their own, and those jax.extend.random exports are the
    # same objects there (checked on 0.4.28, 0.10.0 and 0.10.2).
    "jax._src.prng": Move("jax._src.random.prng", (0, 10, 2), "0.10.1 or 0.10.2", module=True),
    **{f"jax._src.prng.{n}": Move(f"jax.extend.random.{n}", (0, 4, 28), "0.10.1 or 0.10.2") for n in (
        "threefry2x32_p", "threefry_2x32", "threefry_prng_impl", "rbg_prng_impl", "unsafe_rbg_prng_impl")},
    # The threefry implementation's functions, which jax.extend.random does not export:
    # moved with their code to the private jax._src.random.threefry2x32 (same signatures).
    **{f"jax._src.prng.{n}": Move(f"jax._src.random.threefry2x32.{n}", (0, 10, 2), "0.10.1 or 0.10.2") for n in (
        "threefry_seed", "threefry_split", "threefry_fold_in", "threefry_random_bits")},
    # jax/ad_util.py's members, which jax.interpreters.ad imports (the same objects).
    **{f"jax.ad_util.{n}": Move(f"jax.interpreters.ad.{n}", ANY, "0.4.24 or earlier") for n in (
        "Zero", "add_jaxvals", "add_jaxvals_p", "zeros_like_aval")},
    "jax.config.config": Move("jax.config", (0, 4, 0), "0.4.29"),
    "jax.xla": Move("jax.interpreters.xla", (0, 4, 0), "0.4.0"),
    "jax.core.Token": Move("jax.extend.core.Token", (0, 4, 36), "0.6.0"),
    # The token class lived in jax.interpreters.xla until jax 0.2.26 moved it to jax.core.
    "jax.interpreters.xla.Token": Move("jax.extend.core.Token", (0, 4, 36), "0.4.28 or earlier"),
    # jax/interpreters/xla.py had ``Device = xc.Device``; ``jax.Device is xc.Device`` (0.4.28-0.12.1).
    "jax.interpreters.xla.Device": Move("jax.Device", (0, 4, 28), "0.4.28 or earlier"),
    **{f"jax.{n}": Move(f"jax.tree_util.{n}", ANY, "0.6.0") for n in (
        "tree_map", "tree_flatten", "tree_unflatten", "tree_leaves", "tree_structure", "tree_transpose")},
    **{name: Move("jax.tree_util.tree_map", ANY, "0.3.16", note="tree_multimap forwarded its arguments to it")
       for name in ("jax.tree_multimap", "jax.tree_util.tree_multimap")},
    **{f"jax.core.{n}": Move(f"jax.extend.core.{n}", (0, 4, 31), "0.6.0") for n in (
        "Jaxpr", "ClosedJaxpr", "JaxprEqn", "Literal", "Var", "jaxpr_as_fun")},
    **{f"jax.core.{n}": Move(f"jax.extend.core.primitives.{n}", (0, 4, 31), "0.7.0") for n in (
        "call_p", "closed_call_p")},
    "jax.core.ConcretizationTypeError": Move("jax.errors.ConcretizationTypeError", ANY, "0.7.0"),
    "jax.core.get_aval": Move("jax.typeof", (0, 6, 0), "0.10.0"),
    # The private module the public names re-exported, read directly by Triton bridges.
    "jax._src.core.get_aval": Move("jax.typeof", (0, 6, 0), "0.10.0"),
    # The same singleton (abstract_arrays re-exported core's): jax tests a token's aval with
    # ``is core.abstract_token``, so a new ``AbstractToken()`` would not do. jax.core still
    # has it (deprecated, with no public successor).
    "jax.abstract_arrays.abstract_token": Move("jax.core.abstract_token", ANY, "0.4.14"),
    "jax.core.get_type": Move("jax.typeof", (0, 6, 0), "0.7.0"),
    **{f"jax.core.{n}": Move(f"jax.extend.core.{n}", (0, 9, 0), "0.10.0") for n in ("mapped_aval", "unmapped_aval")},
    **{f"jax.core.{n}": Move(f"jax.extend.core.{n}", (0, 10, 0), "0.10.0") for n in (
        "AbstractToken", "TraceTag", "subjaxprs", "set_current_trace", "take_current_trace")},
    # jax 0.12.0 removed call_impl (and CallPrimitive) from jax.extend.core too.
    "jax.core.call_impl": Move("jax.extend.core.call_impl", (0, 10, 0), "0.10.0", until=(0, 12, 0)),
    # Deprecated in 0.10.0 ("Use jax.extend.core.X" / "Use jax.errors.X", jax/core.py),
    # removed in 0.11.0; the replacements are the same objects and appeared in 0.10.0
    # (none of them is in 0.9.2's jax.extend.core). The three _DO_NOT_USE names were
    # deprecated with no successor named, but jax.extend.core exports the same functions.
    **{f"jax.core.{n}": Move(f"jax.extend.core.{n}", (0, 10, 0), "0.11.0") for n in (
        "DebugInfo", "DropVar", "Effect", "Effects", "check_jaxpr", "concrete_or_error", "find_top_trace", "gensym",
        "get_opaque_trace_state", "jaxprs_in_params", "new_jaxpr_eqn", "no_effects", "primal_dtype_to_tangent_dtype",
        "valid_jaxtype", "nonempty_axis_env_DO_NOT_USE", "unsafe_am_i_under_a_jit_DO_NOT_USE",
        "unsafe_am_i_under_a_vmap_DO_NOT_USE", "unsafe_get_axis_names_DO_NOT_USE")},
    "jax.core.CallPrimitive": Move("jax.extend.core.CallPrimitive", (0, 10, 0), "0.11.0", until=(0, 12, 0)),
    **{f"jax.core.{n}": Move(f"jax.errors.{n}", (0, 10, 0), "0.11.0") for n in (
        "InconclusiveDimensionOperation", "JaxprTypeError")},
    # The singleton is public again from 0.11.0, in jax.ffi (jax._src.core's object, as
    # jax.core's was); a move to jax.core.abstract_token goes on there on such a target.
    "jax.core.abstract_token": Move("jax.ffi.abstract_token", (0, 11, 0), "0.11.0"),
    # Both served jax.checkpoint (jax.remat, which the removal message names, is another function).
    **{f"jax.ad_checkpoint.{n}": Move("jax.checkpoint", ANY, "0.10.0") for n in ("checkpoint", "remat")},
    **{f"jax.core.{n}": Move(f"jax.errors.{n}", ANY, "0.4.24 or earlier") for n in (
        "TracerArrayConversionError", "TracerIntegerConversionError", "UnexpectedTracerError")},
    "jax.interpreters.xla.ShapedArray": Move("jax.core.ShapedArray", ANY, "0.4.24 or earlier"),
    "jax.interpreters.partial_eval.Jaxpr": Move("jax.extend.core.Jaxpr", (0, 4, 31), "0.10.0 or earlier"),
    "jax.interpreters.batching.Array": Move("jax.Array", (0, 4, 1), "0.10.0"),
    # jax/_src/api.py imported argnums_partial from api_util, where it has always been defined.
    "jax._src.api.argnums_partial": Move("jax._src.api_util.argnums_partial", ANY, "a re-export, gone by 0.10.2"),
    # The abstractify of jit's argument handling moved from api_util into core between
    # 0.4.30 (api_util has it, core not) and 0.5.3 (core has it, api_util not).
    "jax._src.api_util.shaped_abstractify": Move("jax._src.core.shaped_abstractify", (0, 5, 3), "0.5.3 or earlier"),
    # No public successor: the same classes live on in jax's private package, which only
    # --unsafe-fixes writes (a vmap-tracer test ``type(t) is batching.BatchTracer``).
    **{f"jax.interpreters.batching.{n}": Move(f"jax._src.interpreters.batching.{n}", ANY, "a re-export, gone by 0.10.2",
                                              unsafe="the same class, but from jax's private jax._src, which may change "
                                                     "without notice; a batching rule (batching.primitive_batchers) "
                                                     "or a jax.core.Tracer check needs none")
       for n in ("BatchTracer", "BatchTrace")},
    # jax 0.4.6 renamed the aval of a Ref (early Pallas, jax-triton): ShapedArrayRef(shape,
    # dtype) became AbstractRef(inner_aval), the same role, so a type test or annotation
    # moves as it is (jax-triton's own migration did so); a call is made another way.
    "jax._src.state.ShapedArrayRef": Move(
        "jax._src.state.AbstractRef", (0, 4, 6), "0.4.6", type_test=True,
        note="the aval of a Ref, renamed; private, as the old name was",
        annotation_only=("the aval of a Ref is the private jax._src.state.AbstractRef now, made from the aval it "
                         "wraps: ShapedArrayRef(shape, dtype) is AbstractRef(jax.core.ShapedArray(shape, dtype))")),
    # Deprecated on Dec 15, 2023 with no successor named, finalized on 2024-06-24 (jax/core.py
    # had imported jax._src.core's canonicalize_shape as _deprecated_canonicalize_shape).
    "jax.core.canonicalize_shape": Move(
        "jax._src.core.canonicalize_shape", (0, 4, 0), "0.4.31",
        unsafe="the same function, but from jax's private jax._src, which may change without notice; for a "
               "concrete shape, tuple(operator.index(d) for d in shape) is what it returned"),
    "jax.nn.normalize": Move("jax.nn.standardize", ANY, "0.4.36"),
    "jax.numpy.round_": Move("jax.numpy.round", ANY, "0.6.0"),
    "jax.numpy.row_stack": Move("jax.numpy.vstack", ANY, "0.4.24 or earlier"),
    # Deprecated in 0.4.16 with "Use jax.scipy.integrate.trapezoid instead" (added in that
    # release: jax.numpy's implementation, moved), removed in 0.4.24.
    "jax.numpy.trapz": Move("jax.scipy.integrate.trapezoid", (0, 4, 16), "0.4.24"),
    "jax.treedef_is_leaf": Move("jax.tree_util.treedef_is_leaf", ANY, "0.6.0"),
    # jax/__init__.py exported api.py's ``from functools import partial`` ("TODO(phawkins):
    # update callers to use functools.partial") until 0.2.21.
    "jax.partial": Move("functools.partial", ANY, "0.2.21", note="jax re-exported functools.partial itself"),
    "jax.experimental.pjit.with_sharding_constraint": Move("jax.lax.with_sharding_constraint", ANY,
                                                           "0.4.24 or earlier"),
    "jax.extend.core.ShapedArray": Move("jax.core.ShapedArray", (0, 4, 0), "", note=(
        "jax.extend.core never had ShapedArray, so this lookup raised AttributeError on every release; "
        "jax.core.ShapedArray is the only class of that name jax ever had")),
    "jax.linear_util": Move("jax.extend.linear_util", (0, 4, 16), "0.4.24", module=True),
    # ``jax.ad`` was the module jax.interpreters.ad itself (removed 0.4.14); jax 0.10 reuses
    # the name for a namespace of new autodiff types, so only the old members move.
    **{f"jax.ad.{n}": Move(f"jax.interpreters.ad.{n}", ANY, "0.4.14") for n in AD_MEMBERS},
    # "Functions that were available as jax.api.* were aliases for functions in jax.*"
    # (changelog of 0.2.21, which removed the module).
    **{f"jax.api.{n}": Move(f"jax.{n}", ANY, "0.2.21") for n in API_MEMBERS},
    # jax/api.py imported the pytree functions from jax.tree_util, and its users read them
    # as ``jax.api.tree_map``; jax.tree_map itself is gone too, so they go to their home.
    **{f"jax.api.{n}": Move(f"jax.tree_util.{n}", ANY, "0.2.21") for n in (
        "tree_map", "tree_flatten", "tree_unflatten", "tree_structure", "tree_leaves", "tree_transpose")},
    "jax.api.tree_multimap": Move("jax.tree_util.tree_map", ANY, "0.2.21",
                                  note="tree_multimap forwarded its arguments to it"),
    # jax/api_util.py re-exported these from jax.tree_util.
    **{f"jax.api_util.{n}": Move(f"jax.tree_util.{n}", ANY, "a re-export, gone by 0.10.2") for n in (
        "tree_flatten", "tree_unflatten", "treedef_is_leaf")},
    # jax.numpy bound NumPy's aliases to the functions themselves (``cumproduct = cumprod``).
    **{f"jax.numpy.{old}": Move(f"jax.numpy.{new}", ANY, "0.4.28 or earlier") for old, new in (
        ("product", "prod"), ("cumproduct", "cumprod"), ("alltrue", "all"), ("sometrue", "any"))},
    # The example libraries moved out of jax.experimental in 0.2.25, and jax.lax_linalg
    # became jax.lax.linalg: the same modules.
    **{f"jax.experimental.{n}": Move(f"jax.example_libraries.{n}", (0, 2, 25), "0.3.16 or earlier", module=True)
       for n in ("optimizers", "stax")},
    "jax.lax_linalg": Move("jax.lax.linalg", ANY, "0.2.x", module=True),
    # ``jax.ops.index`` was an object whose ``[...]`` returned the index as written, as
    # NumPy's ``s_`` (jax.numpy.s_ is that object) does.
    "jax.ops.index": Move("jax.numpy.s_", ANY, "0.3.2", note="it returned the index as written, as numpy's s_ does"),
    "jax.random.threefry2x32_p": Move("jax.extend.random.threefry2x32_p", (0, 4, 16), "0.4.28 or earlier"),
    # Re-exports of the classes jax.sharding has held since 0.4.1.
    "jax.experimental.maps.Mesh": Move("jax.sharding.Mesh", (0, 4, 1), "0.4.28 or earlier"),
    # The state ``with mesh:`` sets (pjit-era sharding code reads its physical_mesh): maps
    # and pxla both re-exported jax._src.mesh.thread_resources; pxla's name is deprecated
    # (jax 0.8.2, in favour of jax.set_mesh / get_abstract_mesh) but still that object.
    "jax.experimental.maps.thread_resources": Move(
        "jax.interpreters.pxla.thread_resources", (0, 4, 1), "0.4.28 or earlier",
        note="the same object, re-exported there too; that name is deprecated from jax 0.8.2 for jax.set_mesh "
             "and jax.sharding.get_abstract_mesh"),
    "jax.experimental.PartitionSpec": Move("jax.sharding.PartitionSpec", (0, 4, 1), "0.4.28 or earlier"),
    "jax.experimental.pjit.PartitionSpec": Move("jax.sharding.PartitionSpec", (0, 4, 1), "0.4.28 or earlier"),
    # jax 0.4.7 dropped the underscore of jax._src.numpy.util's promotion helpers (the same
    # functions; check_arraylike gained keywords with the old behaviour as default), and
    # lax_numpy, which re-exported some of them, then stopped doing so.
    **{f"jax._src.numpy.util._{n}": Move(f"jax._src.numpy.util.{n}", (0, 4, 7), "0.4.7") for n in NUMPY_UTIL_RENAMED},
    **{f"jax._src.numpy.lax_numpy._{n}": Move(f"jax._src.numpy.util.{n}", (0, 4, 7), "0.4.7 or earlier")
       for n in LAX_NUMPY_REEXPORTED},
    # jax/_src/sharding.py defined the concrete shardings jax.sharding exports, before they
    # moved to jax/_src/sharding_impls.py (the private module keeps the base class only).
    **{f"jax._src.sharding.{n}": Move(f"jax.sharding.{n}", (0, 4, 1), "0.4.14 or earlier") for n in (
        "NamedSharding", "SingleDeviceSharding")},
    "jax.random.KeyArray": Move("jax.Array", (0, 4, 1), "0.4.24", annotation_only=_KEY_GUIDANCE),
    "jax.random.PRNGKeyArray": Move("jax.Array", (0, 4, 1), "0.4.24", annotation_only=_KEY_GUIDANCE),
    **{name: Move("jax.Array", (0, 4, 1), "0.4.14", annotation_only=_DEVICE_ARRAY_GUIDANCE, beside_tracer=True) for name in (
        "jax.numpy.DeviceArray", "jax.interpreters.xla.DeviceArray", "jax.interpreters.xla._DeviceArray",
        # deprecated beside DeviceArray for jax.Array, which subsumed both, and removed with it
        "jax.interpreters.pxla.ShardedDeviceArray")},
    # Pallas (jax.experimental.pallas), from its changelog and the compat environments: the
    # TPU names jax 0.7.0 renamed (jax 0.6.2 already binds both spellings to one object),
    # removed in 0.8.1; ``pltpu.ANY`` (and ``TPUMemorySpace.ANY``), removed in 0.10.0 for
    # ``pl.ANY`` (the same member from 0.7.2 on); the aliases the TPU module dropped once
    # ``pl`` had them; the Triton-only primitives moved to ``jax.experimental.pallas.triton``
    # (deprecated in ``pl`` in 0.7.1 and 0.8.1, gone by 0.10.0); ``pallas.gpu``, the Triton
    # module's old name (``from jax.experimental.pallas.triton import *`` from 0.4.34),
    # removed in 0.6.1.
    # jax/_src/dtypes.py: ``bit_width`` renamed ``itemsize_bits`` in 0.10.0, the same
    # computation (it now raises for ``None`` rather than reading it as a dtype).
    "jax._src.dtypes.bit_width": Move("jax._src.dtypes.itemsize_bits", (0, 10, 0), "0.10.0",
                                      note="the same function renamed"),
    # jax/_src/state/primitives.py: the colouring of a ref in a printed jaxpr, ``pp_ref =
    # partial(pp.color, intensity=NORMAL, foreground=GREEN)`` (early Pallas printed its
    # loads and stores with it), renamed ``pp_ref_var`` beside the new ``pp_ref_transforms``.
    "jax._src.state.primitives.pp_ref": Move("jax._src.state.primitives.pp_ref_var", (0, 4, 28), "0.4.28 or earlier",
                                             note="the same colouring of a document, renamed"),
    f"{PALLAS}.tpu.TPUMemorySpace": Move(f"{PALLAS}.tpu.MemorySpace", (0, 6, 2), "0.8.1"),
    f"{PALLAS}.tpu.TPUMemorySpace.ANY": Move(f"{PALLAS}.ANY", (0, 7, 2), "0.10.0"),
    f"{PALLAS}.tpu.ANY": Move(f"{PALLAS}.ANY", (0, 7, 2), "0.10.0"),
    f"{PALLAS}.tpu.TPUCompilerParams": Move(f"{PALLAS}.tpu.CompilerParams", (0, 6, 2), "0.8.1"),
    f"{PALLAS}.tpu.delay": Move(f"{PALLAS}.delay", (0, 10, 0), "0.10.0"),
    **{f"{PALLAS}.tpu.{n}": Move(f"{PALLAS}.{n}", (0, 4, 35), "0.4.35") for n in ("run_scoped", "CostEstimate")},
    **{f"{PALLAS}.{n}": Move(f"{PALLAS}.triton.{n}", (0, 7, 1), "0.10.0 (after 0.8.0)") for n in PALLAS_ATOMICS},
    f"{PALLAS}.max_contiguous": Move(f"{PALLAS}.triton.max_contiguous", (0, 8, 1), "0.10.0 (after 0.8.0)"),
    f"{PALLAS}.gpu": Move(f"{PALLAS}.triton", (0, 4, 34), "0.6.1", module=True),
    f"{PALLAS}.triton.TritonCompilerParams": Move(f"{PALLAS}.triton.CompilerParams", (0, 6, 2), "0.8.1"),
    # Deprecated in 0.10 ("pltpu.X is deprecated, use pl.X instead"; Mar and Jun 2026), the
    # same objects; removed in 0.11.0 (the semaphores) and 0.12.0 (HOST). pl has had the
    # semaphores since 0.6.2 or before and HOST since 0.7.2.
    **{f"{PALLAS}.tpu.{n}": Move(f"{PALLAS}.{n}", (0, 6, 2), "0.11.0") for n in (
        "semaphore", "DeviceIdType", "semaphore_read", "semaphore_signal", "semaphore_wait")},
    f"{PALLAS}.tpu.HOST": Move(f"{PALLAS}.HOST", (0, 7, 2), "0.12.0"),
    # "jax.experimental.pallas.dot was moved to jax.experimental.pallas.triton" (0.10.2, the
    # same function; removed from pl in 0.12.0).
    f"{PALLAS}.dot": Move(f"{PALLAS}.triton.dot", (0, 10, 2), "0.12.0"),
})
@lru_cache(maxsize=None)
def _config_option_exists(option: str) -> bool:
    """Whether the installed jax has config option ``option`` (jax's own registry)."""
    try:
        import jax
    except Exception:  # noqa: BLE001 - without jax nothing can be told
        return True
    holders = getattr(jax.config, "_value_holders", None)
    return option in holders if isinstance(holders, dict) else True


@lru_cache(maxsize=None)
def _config_lacks(attribute: str) -> bool:
    """Whether the installed ``jax.config`` object lacks ``attribute``. It is an instance
    whose options are set on it when jax is imported, so its source cannot tell."""
    if attribute.startswith("__"):
        return False
    try:
        import jax
    except Exception:  # noqa: BLE001 - without jax nothing can be told
        return False
    return not hasattr(jax.config, attribute)


#: ``jax.config`` methods that did nothing for years before jax removed them: a statement
#: calling one goes (its reason).
NO_OP_CONFIG_CALLS = {
    "jax.config.enable_omnistaging": "a no-op (it only warned) from jax 0.2.12 on, removed by 0.4.20",
}


_NO_OP_NAMES = frozenset(name.rsplit(".", 1)[1] for name in NO_OP_CONFIG_CALLS)
#: The config object as ``from jax.config import config`` reached it.
_OLD_CONFIG = "jax.config.config."


def _config_canonical(qualified: str) -> str:
    return "jax.config." + qualified[len(_OLD_CONFIG):] if qualified.startswith(_OLD_CONFIG) else qualified


def _config_member_gone(qualified: str) -> Optional[str]:
    """``jax.config.enable_omnistaging``: a member the installed config object lacks."""
    parts = qualified.split(".")
    if parts[:2] != ["jax", "config"] or len(parts) < 3 or not _config_lacks(parts[2]):
        return None
    return ".".join(parts[:3])

#: Modules whose uses, once all rewritten, let their import go.
MOVED_MODULES = ("jax.abstract_arrays", "jax._src.lib.xla_bridge", "jax.experimental.maps", "jax.api")

# ``xla.xb`` and the private ``jax._src.lib.xla_bridge`` were jax's xla_bridge module: the
# members xla-client-import moves for ``jax.lib.xla_bridge`` are the same objects there.
for _module in ("jax.interpreters.xla.xb", "jax._src.lib.xla_bridge"):
    for _member, _new in (("get_backend", "jax.extend.backend.get_backend"),
                          ("backends", "jax.extend.backend.backends"),
                          *((n, f"jax.{n}") for n in ("default_backend", "devices", "local_devices", "device_count",
                                                       "local_device_count", "process_index", "process_count"))):
        MOVED[f"{_module}.{_member}"] = Move(_new, (0, 5, 0), "0.4.35" if "xla.xb" in _module else "0.4 (before 0.4.16)")

#: Removed names that were constants: (the value, where it came from, removed in). Their
#: dotted uses become the value itself.
VALUES: dict[str, tuple[str, str, str]] = {
    **{f"{m}.not_mapped": ("None", "batching.py defined it as `not_mapped = None`", "0.10.1 or 0.10.2")
       for m in ("jax.interpreters.batching", "jax._src.interpreters.batching")},
    # NumPy's float constants, which jax.numpy re-exported.
    **{f"jax.numpy.{n}": (text, f"it re-exported NumPy's float constant {n}", "0.4.28 or earlier") for n, text in (
        ("NINF", "float('-inf')"), ("PINF", "float('inf')"), ("NZERO", "-0.0"), ("PZERO", "0.0"))},
    "jax.interpreters.batching.NotMapped": ("type(None)", "batching.py defined it as `NotMapped = type(None)`",
                                            "0.10.0"),
    "jax.config.jax_array": ("True", "jax.Array could not be disabled from jax 0.4.7 on, so the option was always "
                             "True", "0.4.14"),
    "jax.config.omnistaging_enabled": ("True", "omnistaging could not be disabled from jax 0.2.12 on, so it was "
                                       "always True", "0.4 (after 0.2.12)"),
}
#: Attributes of objects (jax.config is an instance) that the static look-up cannot see gone.
_INSTANCE_ATTRIBUTES = frozenset({"jax.config.omnistaging_enabled"})
#: ``import jax.config``: jax.config is no module any more (the config object), so the
#: statement fails; ``import jax`` binds the same name, through which ``jax.config.*`` reads.
NOT_MODULES = {"jax.config": "jax"}

#: Removed names with no exact replacement: what jax advised instead.
EXTENSION = "jaxlib.xla_extension"
#: Members of the deleted ``jaxlib.xla_extension`` with a public counterpart to name.
EXTENSION_GUIDANCE = {
    member: "test with jax.Array, which also matches tracers under jit: "
            "`isinstance(x, jax.Array) and not isinstance(x, jax.core.Tracer)` for a concrete array"
    for member in ("ArrayImpl", "DeviceArray")
}
#: jax.mask's interpreter, deleted with jax.mask and jax.shapecheck in jax 0.3.16.
MASKING = "jax.interpreters.masking"
MASKING_REMOVED = (0, 3, 16)
GUIDANCE = {
    "jax.config.disable_omnistaging": "it raised an Exception from jax 0.2.12 on (omnistaging can no longer be "
                                      "disabled): delete the call",
    **{f"{module}.ConcreteArray": "avals are never concrete any more: use jax.core.ShapedArray, and "
                                  "jax.extend.core.concrete_or_error to read a concrete value"
       for module in ("jax.core", "jax.abstract_arrays")},
    "jax.interpreters.ad.defvjp_all": "wrap the function in jax.custom_vjp: its fwd returns (out, residuals) and bwd "
                                      "maps them and the cotangent to input cotangents, the pair defvjp_all's rule "
                                      "returned as (out, vjp)",
    "jax.core.Shape": "it was an alias of a sequence of dimensions: annotate with Sequence[int] or tuple[int, ...]",
    "jax.core.concrete_aval": "use jax.typeof",
    # What the deprecation messages of Dec 2023 / Jan 2024 said (removed in 0.4.31).
    "jax.core.dimension_as_value": "use jnp.array(d)",
    **{f"jax.core.{n}": "compare the dimensions with ==" for n in ("definitely_equal", "symbolic_equal_dim")},
    "jax.core.non_negative_dim": "use jax.core.max_dim(d, 0)",
    "jax.interpreters.xla.canonicalize_dtype": "it canonicalized values, not dtypes: jax.dtypes.canonicalize_dtype "
                                               "for a dtype, jax.extend.core.valid_jaxtype to check a value",
    "jax.interpreters.xla.pytype_aval_mappings": "jax.core.pytype_aval_mappings in most cases",
    "jax.interpreters.xla.xb": "use jax.extend.backend",
    "jax.xla_computation": "use jax.jit(f).lower(*args).compiler_ir('hlo')",
    "jax.experimental.pallas.tpu.KernelType": "use jax.experimental.pallas.tpu.CoreType (jax 0.10.0's deprecation "
                                              "bound KernelType to it)",
    **{name: ("jax's mask and shapecheck transformations went in jax 0.3.16 with their interpreter: shape-"
              "polymorphic code is exported with symbolic shapes (jax.export.symbolic_shape), and masking rules can go")
       for name in (MASKING, "jax.mask", "jax.shapecheck")},
    **{f"jax.lax.{module}": (f"jax.lax's implementation modules went private in jax 0.2.9 (jax._src.lax.{module[4:] or 'lax'} "
                             "since): import public names from jax.lax; the rest are jax's internals")
       for module in ("lax", "lax_control_flow", "lax_fft", "lax_parallel")},
    "jax.experimental.host_callback": "use jax.pure_callback, jax.experimental.io_callback or jax.debug.callback",
    "jax.experimental.maps": ("xmap is gone: `xmap(f, in_axes=(('x', None), (None,)), out_axes=('x', None), "
                              "axis_resources={'x': 'x'})` under `with mesh:` is `jax.shard_map(jax.vmap(f, in_axes=(0, "
                              "None)), mesh=mesh, in_specs=(P('x'), P()), out_specs=P('x'))`, P being "
                              "jax.sharding.PartitionSpec (no batching rule is needed when each device holds one slice: "
                              "call f on x[0] and add the axis back); Mesh is jax.sharding.Mesh"),
    "jax.interpreters.ad.Zero.from_primal_value": "build ad.Zero(jax.typeof(v).to_tangent_aval())",
    "jaxlib.mlir.dialects.tensor": ("jaxlib ships no tensor dialect (none of 0.4.28-0.10 did): build the op with MLIR "
                                    "Python bindings that have it, or in StableHLO (an element: stablehlo.slice, then "
                                    "stablehlo.reshape to a scalar)"),
    "jaxlib.xla_extension": "XlaRuntimeError is jax.errors.JaxRuntimeError, Device is jax.Device",
    "jax.interpreters.xla.device_put": (
        "it returned raw device buffers; jax.device_put(x, device) gives a jax.Array on that device, and "
        "jax.make_array_from_single_device_arrays(shape, sharding, arrays) builds one array over several devices"),
    "jax.interpreters.partial_eval.abstract_eval_fun": (
        "it traced fun(*avals, **params) to its output avals; jax.eval_shape(functools.partial(fun, **params), "
        "*avals) gives their shapes and dtypes (ShapeDtypeStructs, as a pytree); the private "
        "jax._src.interpreters.partial_eval.abstract_eval_fun now requires debug_info="),
    **{f"jax.interpreters.ad.{name}": (
        "VJP rules per primitive are gone: give the primitive a JVP rule (ad.defjvp) and a transpose rule "
        "(ad.primitive_transposes[p]), or wrap the function that binds it in jax.custom_vjp")
       for name in ("defvjp", "defvjp_all", "defvjp2")},
    "jax.api": ("jax 0.2.21 removed the module: its public functions are jax.* (jax.jit, jax.grad...), its pytree "
                "functions jax.tree_util.*; its private helpers (_std_basis, _jvp...) live on in jax._src.api, "
                "private, which may change without notice"),
    "jax._src.lib.xla_bridge": "backends are in jax.extend.backend (get_backend, backends)",
    "jax.interpreters.pxla": "pmap's sharding internals are gone: use jax.shard_map and jax.sharding",
    "jax.sharding.PositionalSharding": ("use jax.sharding.NamedSharding(mesh, jax.sharding.PartitionSpec(...)) over a "
                                        "jax.sharding.Mesh of the same devices; no sharding jax makes is a "
                                        "PositionalSharding any more"),
    "jax._src.ad_checkpoint._optimization_barrier": "use jax.lax.optimization_barrier (public from jax 0.4.32)",
    "jax.interpreters.mlir.mhlo": ("jax lowers to StableHLO: build the ops with jax.extend.mlir.dialects.stablehlo "
                                   "(jaxlib.mlir.dialects.mhlo remains, with newer op builders)"),
    **{name: "jit's primitive is jax.extend.core.primitives.jit_p (a jaxpr shows it as `jit`)"
       for name in ("jax._src.pjit.pjit_p", "jax.experimental.pjit.pjit_p", "jax.interpreters.xla.xla_call_p")},
    # A custom array class plugged into dispatch by hand (SparseSpikes, xbarax): every table
    # went with DeviceArray in jax 0.4.x; what stays public is the pytree protocol.
    **{name: ("jax no longer dispatches on foreign array classes through handler tables: register the class "
              "as a pytree of jax arrays (jax.tree_util.register_pytree_node_class) and jax.device_put, jit and "
              "the transformations take it as they take its leaves")
       for name in ("jax._src.dispatch.device_put", "jax._src.dispatch.device_put_handlers",
                    "jax._src.dispatch.result_handlers", "jax._src.dispatch.num_buffers_handlers",
                    "jax.interpreters.xla.xla_shape_handlers", "jax._src.array._array_local_result_handler")},
    **{f"{module}.AUTO": ("the automatic-sharding marker is gone: leave the sharding unspecified (jit's "
                          "default lets the partitioner choose one) or give a jax.sharding.NamedSharding")
       for module in ("jax.experimental.pjit", "jax._src.sharding_impls")},
    "jax.experimental.multihost_utils.all_gather": ("gathering across processes is "
                                                    "jax.experimental.multihost_utils.process_allgather(in_tree, "
                                                    "tiled=False)"),
    **{f"jax.dtypes.{name}": f"jax.dtypes holds no scalar types: use jax.numpy.{name}"
       for name in ("complex64", "complex128", "float32", "float64", "int32", "int64")},
    "jax.lax.broadcast_p": ("lax.broadcast binds broadcast_in_dim_p now (jax.extend.core.primitives."
                            "broadcast_in_dim_p): a jaxpr holds no broadcast equation"),
    "jax.core.UnshapedArray": "every array aval is a jax.core.ShapedArray now",
    **{name: "units left jaxprs: no value or variable stands for them now, so drop the case that handled them"
       for name in ("jax.core.unit", "jax.core.unitvar", "jax.core.Unit", "jax.core.abstract_unit")},
    "jax._src.device_array": "DeviceArray is jax.Array now (isinstance(x, jax.Array))",
    # Tracing internals of jaxpr interpreters written before jax 0.4.36's stackless tracing.
    **{f"jax.core.{name}": (
        "main traces and sublevels went with jax 0.4.36's stackless tracing: an interpreter subclasses "
        "jax.core.Trace and runs the function under `with jax.extend.core.set_current_trace(trace):` "
        "(jax.extend.core.take_current_trace() gives the trace around it)")
       for name in ("new_main", "new_base_main", "new_sublevel", "cur_sublevel", "MainTrace", "Sublevel",
                    # their names until jax 0.2.0 renamed them (``trace.master`` became ``trace.main``)
                    "new_master", "new_base_master", "MasterTrace")},
    "jax.interpreters.ad.replace_float0s": (
        "it gave the tangent, or zeros like the primal where the tangent's dtype was float0: write "
        "`jnp.zeros_like(primal) if tangent.dtype == jax.dtypes.float0 else tangent`"),
    "jax.interpreters.ad.recast_to_float0": (
        "it gave a symbolic zero where the primal's tangent dtype is float0 (integer and boolean primals), the "
        "tangent otherwise: `ad.Zero(jax.typeof(primal).to_tangent_aval())` in that case"),
    "jax.core.as_named_shape": ("named shapes went with xmap (gone by jax 0.5.0): a shape is a plain tuple of dimensions, "
                                "so pass the shape itself (tuple(shape))"),
    "jax.interpreters.xla.xops": ("it was the XlaBuilder's op module (xla_client.ops), removed in jax 0.6.0: "
                                  "build the op in an MLIR lowering rule with "
                                  "jax.extend.mlir.dialects.stablehlo"),
    "jax.interpreters.partial_eval.trace_to_jaxpr_final": (
        "jax.make_jaxpr(f)(*args) gives the closed jaxpr; the internal equivalent is "
        "jax.interpreters.partial_eval.trace_to_jaxpr_dynamic(wrapped_fun, in_avals)"),
    **{f"jax.core.{name}": (
        f"jax.core no longer re-exports jax's list helpers: use the builtin "
        f"{name[5:]} with a length check ({'zip(*xs, strict=True)' if name == 'safe_zip' else 'map(f, *xs) after checking len(x) of each is the same'}); "
        f"jax._src.util.{name} is the same helper, private")
       for name in ("safe_map", "safe_zip")},
    "jax.interpreters.partial_eval.remat_call_p": (
        "jax.checkpoint binds jax._src.ad_checkpoint.remat_p (private; named remat2, shown as `checkpoint` in "
        "a jaxpr) with the body as a `jaxpr` parameter"),
    "jax._src.core.AxisPrimitive": "collectives are plain primitives now: use jax.extend.core.Primitive",
    "jax.interpreters.ad.jvp_jaxpr": "private now: jax._src.interpreters.ad.jvp_jaxpr, which may change without notice",
    "jax.interpreters.partial_eval.convert_constvars_jaxpr": (
        "private now: jax._src.interpreters.partial_eval.convert_constvars_jaxpr, which may change without notice"),
    "jax.interpreters.partial_eval.debug_info": "private now: jax._src.api_util.debug_info",
    "jax.interpreters.mlir._ndarray_constant_handler": (
        "build the constant with jax.interpreters.mlir.ir_constants(value), which no longer canonicalizes its dtype "
        "(what canonicalize_types=False asked for)"),
    "jax._src.api_util._shaped_abstractify_handlers": (
        "register the type's aval function in jax.core.pytype_aval_mappings, which jax reads for every argument"),
    "jax.numpy.lax_numpy": ("jax.numpy's implementation module went private (jax._src.numpy.lax_numpy, whose "
                            "helpers change without notice): call the public jax.numpy function instead "
                            "(for `_unique1d(x, return_index, return_inverse, return_counts)`, jax.numpy.unique(x, "
                            "return_index=..., return_inverse=..., return_counts=...), which flattens x alike)"),
    "jax.google": ("a path of Google's internal build of jax, never in the public package: use the public module "
                   "it stands for (its hlo_helpers is jaxlib's hlo_helpers, removed in jax 0.8.0: a custom call is "
                   "now built with jax.ffi.ffi_lowering or jax.ffi.build_ffi_lowering_function)"),
    "jax.ipu": ("a module of Graphcore's IPU build of jax (jax-ipu), not of jax: the code runs only on that "
                "build; on jax itself lower the op with jax.ffi"),
    "jax._src.dtypes.python_scalar_dtypes": (
        "private, renamed jax._src.dtypes.python_scalar_types_to_dtypes (the same table: Python scalar type "
        "to the dtype jax gives its values)"),
    **{name: ("custom_transforms and its defjvp went in jax 0.2.12 (deprecated before): "
              "write the function as a jax.custom_jvp: decorate it with `@jax.custom_jvp` instead, and turn each "
              "`defjvp(f, rule, ...)` into `f.defjvps(rule, ...)`: each rule still takes (g, ans, *args)")
       for name in ("jax.custom_transforms", "jax.defjvp", "jax.api.custom_transforms", "jax.api.defjvp")},
    **{f"jax.interpreters.batching.{name}": (
        f"no public replacement: the class lives on privately as jax._src.interpreters.batching.{name}, which a "
        "vmap-tracer test can import knowing it may change without notice; prefer a batching rule "
        "(batching.primitive_batchers) or jax.core.Tracer checks") for name in ("BatchTracer", "BatchTrace")},
    "jax.interpreters.mlir.full_like_aval": (
        "build the constant: mlir.ir_constant(np.broadcast_to(np.array(value, aval.dtype), aval.shape)) emits the "
        "same scalar constant and broadcast_in_dim"),
    # Programs built op by op and run by hand (jaxlib 0.1 tutorials and tests).
    **{f"{module}.{name}": (
        "programs built op by op with the XlaBuilder and run by hand are gone: write the computation in jax "
        "and jit it; a lone custom call is jax.jit(jax.ffi.ffi_call(name, jax.ShapeDtypeStruct(shape, dtype), "
        "custom_call_api_version=1))(*operands) (legacy_backend_config= for an opaque string), each layout as "
        "input_layouts/output_layouts (major-to-minor: the reverse of minor_to_major)")
       for module in ("jaxlib.xla_client", "jax.lib.xla_client", "jax._src.lib.xla_client")
       for name in ("ComputationBuilder", "XlaBuilder", "XlaComputation", "execute_with_python_values",
                    "execute_with_python_values_replicated")},
}

_COMMENT_LINE = re.compile(r"^[ \t]*#[^\n]*", re.MULTILINE)
#: The table of raise_to_shaped handlers (unused from jax 0.4.36, removed in 0.6.0).
RAISE_TO_SHAPED_MAPPINGS = ("jax.core.raise_to_shaped_mappings", "jax._src.core.raise_to_shaped_mappings")
_MASKING_WHY = ("jax.interpreters.masking was deleted with jax.mask and jax.shapecheck in jax 0.3.16, and nothing has "
                "read masking rules since")
#: Tables jax no longer reads: (first release where a registration into one has no effect,
#: why). The statement registering into one goes.
DEAD_REGISTRIES = {
    **{name: ((0, 4, 36), "jax.core.raise_to_shaped_mappings was removed in jax 0.6.0 and jax has not read it since "
                          "0.4.36 (raise_to_shaped is a no-op)") for name in RAISE_TO_SHAPED_MAPPINGS},
    **{f"{MASKING}.{table}": (MASKING_REMOVED, _MASKING_WHY)
       for table in ("masking_rules", "shape_rules", "shape_parameterized_primitive_rules")},
}
#: ``@custom_transforms`` and ``defjvp(f, *rules)`` (jax.api's, removed in jax 0.2.12).
CUSTOM_TRANSFORMS = frozenset({"jax.custom_transforms", "jax.api.custom_transforms"})
DEFJVP = frozenset({"jax.defjvp", "jax.api.defjvp"})
#: The other helpers that took a custom_transforms function (gone with it).
CUSTOM_TRANSFORMS_HELPERS = frozenset(f"jax.{m}{name}" for m in ("", "api.")
                                      for name in ("defjvp_all", "defvjp", "defvjp_all"))


@dataclasses.dataclass
class _CustomTransforms:
    """A ``@custom_transforms`` function whose every derivative rule is a module-level
    ``defjvp(f, *rules)`` statement: it becomes a ``jax.custom_jvp`` with ``f.defjvps``."""
    function: cst.FunctionDef
    decorator: cst.Decorator
    lines: list  # (statement line, defjvp call)
    safe: bool


#: The members of jax.interpreters.xla through which translation rules were registered.
_TRANSLATION_MEMBERS = ("backend_specific_translations", "translations", "register_translation")
TRANSLATIONS = re.compile(rb"backend_specific_translations|register_translation|translations\[|translations_with_avals\[|lower_fun\(")

#: Owned modules whose rule reports a star import of them too (jax-extend-ffi); a star
#: import of any other owned module that jax removed is reported here.
OWNED_STARS_REPORTED = frozenset({"jax.extend.ffi"})

#: Prefixes other rules migrate or report; this rule says nothing about them.
OWNED = (
    "jax.core.Primitive",
    "jaxlib.hlo_helpers",
    "jaxlib.mhlo_helpers",
    "jax.extend.ffi",
    "jax.lib.xla_client",
    "jax.lib.xla_bridge",
    "jax.lib.xla_extension",
    # ``jaxlib.xla_client`` itself still exists: only the members other rules migrate are
    # theirs (its ``XlaBuilder``, ``XlaOp``... are this rule's to report).
    *(f"{client}.{member}" for client in ("jaxlib.xla_client", "jax._src.lib.xla_client") for member in (
        "ops", "Shape", "register_custom_call_target", "register_cpu_custom_call_target")),
    # The engine reports an import of it that unmigrated uses keep alive.
    "jaxlib.xla_extension",
    "jax.interpreters.mlir.custom_call",
    # pallas-api rewrites their calls and reports the rest.
    *(f"jax.experimental.pallas.{n}" for n in ("load", "store", "swap", "Unblocked", "unblocked")),
    # host-callback rewrites its calls and reports the rest.
    "jax.experimental.host_callback",
    # jax-util defines its helpers in the module and reports the rest.
    "jax.util",
    # effect-registries moves the sets of effects to jax._src.effects and reports the rest.
    "jax._src.lax.control_flow.allowed_effects",
    "jax._src.custom_derivatives.allowed_effects",
    "jax.core.ordered_effects",
    "jax._src.core.ordered_effects",
    "jax._src.ad_checkpoint.remat_allowed_effects",
    # stablehlo-custom-call-op moves the dialect modules.
    "jax.interpreters.mlir.hlo",
    "jax._src.lib.mlir.dialects.mhlo",
    # xla-translation-rule rewrites or reports these (the translation-rule types,
    # ``TranslationRule``/``TranslationContext``/``AxisEnv``, stay this rule's to report:
    # annotations and aliases of them are no translation rule).
    *(f"jax.interpreters.xla.{n}" for n in (
        "register_translation", "translations", "translations_with_avals", "backend_specific_translations", "lower_fun")),
)


#: Classes jax removed with nothing left that makes one: ``isinstance(x, C)`` is False on the
#: target jax. jax.sharding.PositionalSharding (deprecated in 0.6.0, removed in 0.7.0: every
#: sharding jax makes is a NamedSharding, a SingleDeviceSharding or GSPMDSharding);
#: ConcreteArray, the aval of a value known while tracing (removed in 0.4.36 with tracing
#: that no longer keeps concrete avals: jax 0.4.30 has it, 0.5.3 not; every aval is a
#: ShapedArray or another abstract one).
NEVER_INSTANCES = {
    **{f"{m}.PositionalSharding": "0.7.0" for m in ("jax.sharding", "jax._src.sharding_impls")},
    **{f"{m}.ConcreteArray": "0.4.36" for m in ("jax.core", "jax.abstract_arrays", "jax._src.core",
                                                 "jax._src.abstract_arrays")},
}


#: The XLA builder's value type: what translation rules received and returned, where MLIR
#: lowering rules have ``ir.Value``s.
XLA_OP_TYPES = frozenset(f"{m}.XlaOp" for m in ("jax.interpreters.xla", "jaxlib.xla_client", "jax._src.lib.xla_client"))


#: Names other rules own whose import, when nothing reads it, this rule may still drop:
#: the owner rewrites uses and removes the import only once it has seen one. (An unused
#: ``from jax.interpreters.mlir import custom_call`` is custom-call-api's to drop: two
#: edits deleting the same statement would collide.)
UNUSED_IMPORT_DROPPABLE = ("jaxlib.xla_client.", "jaxlib.xla_extension", "jaxlib.xla_extension.")


_ANNOTATED = {cst.Param: "parameter", cst.FunctionDef: "return", cst.AnnAssign: "local variable's"}


def _without_annotation(updated: cst.CSTNode) -> cst.CSTNode:
    """A parameter (``x=None`` rather than ``x = None`` when it has a default) without its
    annotation, a function without its return annotation, ``z: T = v`` as ``z = v``."""
    if isinstance(updated, cst.FunctionDef):
        return updated.with_changes(returns=None)
    if isinstance(updated, cst.AnnAssign):
        return cst.Assign(targets=[cst.AssignTarget(updated.target)], value=updated.value, semicolon=updated.semicolon)
    if not isinstance(updated, cst.Param):
        return updated
    if updated.annotation is None:
        return updated
    if updated.default is not None:
        return updated.with_changes(annotation=None, equal=TIGHT_EQUAL)
    return updated.with_changes(annotation=None)


def _droppable(name: str) -> bool:
    return any(name == p or p.endswith(".") and name.startswith(p) for p in UNUSED_IMPORT_DROPPABLE)


def _owned(name: str) -> bool:
    return any(name == p or name.startswith(p + ".") for p in OWNED)


def _guidance(qualified: str) -> str:
    """jax's guidance for a removed name, or for the module or object it belongs to."""
    return next((text for name, text in GUIDANCE.items() if qualified == name or qualified.startswith(name + ".")), "")


def _plugin_hint(gone: str) -> str:
    """Why a name of jaxlib's ``gpu_*`` modules is missing here: no GPU plugin."""
    deps = awaited_plugins(gone)
    if not deps:
        return ""
    plugins = " or ".join(sorted({"CUDA" if plugin == "cuda" else "ROCm" for plugin, _ in deps}))
    return (f"jaxlib binds it only when a {plugins} plugin is installed, and none is here: the code works "
            "only where one is; verify it on such a machine")


# -- removed helpers rewritten as calls --------------------------------------------------

def _only_defines(stmt: cst.CSTNode) -> bool:
    """``stmt`` only defines or registers things (functions, classes, constants, calls of
    ``def_*``/``register*`` methods such as ``p.def_abstract_eval(...)``): nothing in it can
    have differentiated a primitive whose jvp was not yet registered."""
    if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
        return True
    if not isinstance(stmt, cst.SimpleStatementLine):
        return False
    for call in calls_in(stmt):
        name = call.func.attr.value if isinstance(call.func, cst.Attribute) else getattr(call.func, "value", "")
        if not (isinstance(name, str) and name.startswith(("def", "register"))):
            return False
    return True


_SIMPLE = (cst.Name, cst.Attribute, cst.Call, cst.Subscript, cst.Integer, cst.Float, cst.SimpleString,
           cst.ConcatenatedString, cst.List, cst.Tuple, cst.Dict, cst.Set, cst.Ellipsis)


def _atom(value: cst.BaseExpression) -> cst.BaseExpression:
    """``value`` safe to use as a call's receiver or in place of a call."""
    if isinstance(value, _SIMPLE) or value.lpar:
        return value
    return value.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


def _no_op_context_removable(statement: cst.With, item: cst.WithItem) -> bool:
    """``item`` of ``statement`` can go with nothing lost: it binds no name (``as m``), its
    arguments do nothing when evaluated, and, as the statement's only item, the block can
    move out (not ``async``, no comment below its last line with nowhere to go)."""
    call = item.item
    if item.asname is not None or not isinstance(call, cst.Call) \
            or not all(_pure(a.value) and not a.star for a in call.args):
        return False
    if len(statement.items) > 1:
        return True
    block = statement.body
    return statement.asynchronous is None and not (
        isinstance(block, cst.IndentedBlock) and any(line.comment is not None for line in block.footer))


def _pure(value: cst.BaseExpression) -> bool:
    """Evaluating ``value`` has no effect worth keeping (a name, attribute or literal)."""
    if isinstance(value, (cst.Name, cst.Integer, cst.Float, cst.SimpleString)):
        return True
    return isinstance(value, cst.Attribute) and _pure(value.value)


@dataclasses.dataclass(frozen=True)
class CallRewrite:
    since: tuple[int, ...]
    removed: str
    params: tuple[str, ...]
    #: (rule, call, bound args) -> (safety, message, edit) or a reason the site is manual.
    plan: Callable
    #: What a reference that is not called becomes (``map(core.raise_to_shaped, avals)``),
    #: when one expression does what every call did (text, or rule -> text when it names
    #: something the module must import); None leaves such a reference manual.
    value: Union[str, Callable, None] = None
    #: Why that expression does what the helper did.
    value_why: str = ""


def _plan_moveaxis(rule, call, args):
    if set(args) != {"x", "src", "dst"}:
        return "batching.moveaxis takes (x, src, dst)"
    renamed = {"x": "a", "src": "source", "dst": "destination"}

    def edit(updated: cst.Call) -> cst.CSTNode:
        new_args = []
        for arg in updated.args:
            if arg.keyword is not None:
                arg = arg.with_changes(keyword=cst.Name(renamed[arg.keyword.value]))
            new_args.append(arg)
        func = cst.parse_expression(member_spelling(rule.ctx, "jax.numpy", "moveaxis"))
        return updated.with_changes(func=func, args=new_args)

    return Safety.SAFE, "batching.moveaxis was removed in jax 0.9.0; jax.numpy.moveaxis moves the axis the same way", edit


def _plan_shuffle(rule, call, args):
    """``jax.random.shuffle(key, x, axis=0)``: deprecated since jax 0.3.x with "Use
    jax.random.permutation with independent=True", gone by 0.5.3. Both ran the same
    ``_shuffle(key, x, axis)`` for an array x (checked on jax 0.4.28 and 0.4.30: equal
    results for every axis, negative ones too, with raw and typed keys, under jit)."""
    if not {"key", "x"} <= set(args) or any(a.star for a in call.args):
        return "jax.random.shuffle takes (key, x, axis=0)"

    def edit(updated: cst.Call) -> cst.CSTNode:
        args = [*updated.args]
        args[-1] = args[-1].with_changes(comma=SPACED_COMMA)
        args.append(cst.Arg(keyword=cst.Name("independent"), value=cst.Name("True"),
                            equal=TIGHT_EQUAL))
        func = cst.parse_expression(member_spelling(rule.ctx, "jax.random", "permutation"))
        return updated.with_changes(func=func, args=args)

    return (Safety.SAFE, "jax.random.shuffle was removed (gone by jax 0.5.3); jax.random.permutation with "
            "independent=True shuffles the same way, as its deprecation said", edit)


def _plan_to_dlpack(rule, call, args):
    if "x" not in args or set(args) - {"x", "stream"}:
        return "only to_dlpack(x) and to_dlpack(x, stream=...) have an exact __dlpack__ equivalent"
    if call.args[0] is not args["x"] or len(call.args) > 1 and call.args[1].keyword is None:
        return "the second positional argument of to_dlpack changed meaning across releases (take_ownership, stream)"

    def edit(updated: cst.Call) -> cst.CSTNode:
        receiver = _atom(updated.args[0].value)
        rest = [a.with_changes(comma=cst.MaybeSentinel.DEFAULT) if i == len(updated.args) - 2 else a
                for i, a in enumerate(updated.args[1:])]
        return cst.Call(func=cst.Attribute(value=receiver, attr=cst.Name("__dlpack__")), args=rest)

    return (Safety.SAFE, "jax.dlpack.to_dlpack was removed in jax 0.7.0; x.__dlpack__() returns the same DLPack capsule",
            edit)


def _plan_zero_from_value(rule, call, args):
    if set(args) != {"val"} or not isinstance(call.func, cst.Attribute):
        return "Zero.from_value takes one value"

    def edit(updated: cst.Call) -> cst.CSTNode:
        typeof = cst.parse_expression(rule.ctx.name_for("jax.typeof"))
        value = updated.args[0].value
        inner = cst.Call(func=typeof, args=[cst.Arg(value)])
        return updated.with_changes(func=updated.func.value, args=[cst.Arg(inner)])

    return (Safety.SAFE, "ad.Zero.from_value was removed in jax 0.4.35; it was Zero(get_aval(v)), spelt "
            "Zero(jax.typeof(v)) now (the primal aval, as before)", edit)


def _plan_zero_from_primal_value(rule, call, args):
    if set(args) != {"val"} or not isinstance(call.func, cst.Attribute):
        return "Zero.from_primal_value takes one value"

    def edit(updated: cst.Call) -> cst.CSTNode:
        typeof = cst.parse_expression(rule.ctx.name_for("jax.typeof"))
        aval = cst.Call(func=typeof, args=[cst.Arg(updated.args[0].value)])
        tangent = cst.Call(func=cst.Attribute(value=aval, attr=cst.Name("to_tangent_aval")), args=[])
        return updated.with_changes(func=updated.func.value, args=[cst.Arg(tangent)])

    return (Safety.SAFE, "ad.Zero.from_primal_value was removed in jax 0.10.0; it was Zero(get_aval(v).to_tangent_aval()), "
            "spelt Zero(jax.typeof(v).to_tangent_aval()) now", edit)


def _plan_identity(what: str, removed: str, param: str):
    def plan(rule, call, args):
        if set(args) != {param}:
            return f"{what} with more than the value has no exact equivalent (set weak_type with aval.update)"

        def edit(updated: cst.Call) -> cst.CSTNode:
            return _atom(updated.args[0].value)

        return Safety.SAFE, f"{what} was removed in jax {removed}; it has returned its argument since jax 0.4.36", edit

    return plan


_IDENTITY_WHY = "it has returned its argument unchanged since jax 0.4.36, as its rewritten calls show"


def _plan_tie_in(rule, call, args):
    if set(args) != {"x", "y"}:
        return "lax.tie_in takes (x, y)"

    def edit(updated: cst.Call) -> cst.CSTNode:
        return _atom(bind_arguments(updated, ("x", "y"))["y"].value)

    if _pure(args["x"].value):
        return Safety.SAFE, "lax.tie_in was removed in jax 0.4.29; it returned y and ignored x", edit
    return (Safety.UNSAFE, "lax.tie_in was removed in jax 0.4.29; it returned y and ignored x, "
            "whose expression would no longer be evaluated", edit)


def _plan_abstractify(rule, call, args):
    if set(args) != {"x"}:
        return "xla.abstractify takes one value"

    def edit(updated: cst.Call) -> cst.CSTNode:
        return updated.with_changes(func=cst.parse_expression(rule.ctx.name_for("jax.typeof")))

    return (Safety.UNSAFE, "jax.interpreters.xla.abstractify was removed in jax 0.7.0; jax.typeof gives the same aval "
            "for values, but also accepts tracers, which abstractify rejected with TypeError", edit)


def _plan_zeros_like_array(rule, call, args):
    if set(args) != {"x"}:
        return "lax.zeros_like_array takes one array"

    def edit(updated: cst.Call) -> cst.CSTNode:
        value = updated.args[0].value
        func = cst.parse_expression(rule.ctx.name_for("jax.lax.full_like"))
        return cst.Call(func=func, args=[cst.Arg(value, comma=SPACED_COMMA),
                                         cst.Arg(cst.Integer("0"))])

    return Safety.SAFE, "lax.zeros_like_array was removed in jax 0.9.0; it was full_like(x, 0)", edit


def _plan_optimization_barrier(rule, call, args):
    """``_optimization_barrier(x)`` flattened ``x``, bound ``optimization_barrier_p`` to
    the leaves and unflattened the results: what ``jax.lax.optimization_barrier`` does (it
    also inserts reshards, a no-op outside explicit-sharding mode). The public function
    takes its operand positionally only, as every call of the private one could."""
    if set(args) != {"arg"} or call.args[0].keyword is not None:
        return "jax._src.ad_checkpoint._optimization_barrier takes one operand, passed positionally"

    def edit(updated: cst.Call) -> cst.CSTNode:
        return updated.with_changes(func=cst.parse_expression(rule.ctx.name_for("jax.lax.optimization_barrier")))

    return (Safety.SAFE, "jax._src.ad_checkpoint._optimization_barrier is gone (jax made it public as "
            "jax.lax.optimization_barrier in 0.4.32): the same flatten, optimization_barrier_p.bind, unflatten", edit)


#: Builtins whose result is a lazy iterator: ``ir_tree_registry`` takes it for one leaf.
_LAZY = frozenset({"map", "filter", "zip", "reversed", "iter", "enumerate"})


def _plan_flatten_lowering_ir_args(rule, call, args):
    """``mlir.flatten_lowering_ir_args(xs)``: from jax 0.4.31 the public name was an alias
    of ``flatten_ir_values``, the same loop (a value appended, any other element
    extended). jax 0.10.2 deprecates ``flatten_ir_values`` for ``ir_tree_registry.flatten``,
    which it now calls: the same for lists and tuples of values and of lists and tuples
    (``IrValues``, what lowering rules receive), while a lazy iterator would be one leaf, so
    a generator or ``map(...)`` argument is wrapped in ``list(...)``."""
    if set(args) != {"xs"}:
        return "mlir.flatten_lowering_ir_args takes one sequence"
    module = "jax.interpreters.mlir"  # also for the private jax._src spelling
    registry = tuple(rule.ctx.options.target_jax) >= (0, 10, 2)
    value = args["xs"].value
    lazy = isinstance(value, cst.GeneratorExp) or (
        isinstance(value, cst.Call) and isinstance(value.func, cst.Name) and value.func.value in _LAZY)

    def edit(updated: cst.Call) -> cst.CSTNode:
        arg = updated.args[0].value
        if not registry:
            func = cst.parse_expression(rule.ctx.name_for(f"{module}.flatten_ir_values"))
            return updated.with_changes(func=func, args=[cst.Arg(arg)])
        if lazy:
            arg = cst.Call(func=cst.Name("list"), args=[cst.Arg(arg)])
        func = cst.parse_expression(rule.ctx.name_for(f"{module}.ir_tree_registry") + ".flatten")
        return cst.Subscript(value=cst.Call(func=func, args=[cst.Arg(arg)]),
                             slice=[cst.SubscriptElement(cst.Index(cst.Integer("0")))])

    if registry:
        return (Safety.SAFE, "mlir.flatten_lowering_ir_args was removed in jax 0.7.0 (from 0.4.31 an alias of "
                "flatten_ir_values, which jax 0.10.2 deprecates for ir_tree_registry.flatten): the same flattening of "
                "values and sequences of them" + (", the iterator made a list first" if lazy else ""), edit)
    return (Safety.SAFE, "mlir.flatten_lowering_ir_args was removed in jax 0.7.0; from 0.4.31 on it was "
            "flatten_ir_values itself", edit)


def _plan_in1d(rule, call, args):
    """``jnp.in1d(ar1, ar2, assume_unique=False, invert=False)``: deprecated in jax 0.4.16
    with "Use jax.numpy.isin instead", removed in 0.4.24. It tested the flattened
    ``ar1`` as ``isin`` tests ``element`` and returned that 1-D result; ``isin`` keeps the
    element's shape, so ``jnp.isin(...).ravel()`` is the same array. The two leading
    keywords are renamed (``element``, ``test_elements``); the others are isin's too."""
    if not {"ar1", "ar2"} <= set(args) or any(a.star for a in call.args):
        return "jax.numpy.in1d takes (ar1, ar2, assume_unique=False, invert=False)"
    renamed = {"ar1": "element", "ar2": "test_elements"}

    def edit(updated: cst.Call) -> cst.CSTNode:
        new_args = [a.with_changes(keyword=cst.Name(renamed[a.keyword.value]))
                    if a.keyword is not None and a.keyword.value in renamed else a for a in updated.args]
        func = cst.parse_expression(member_spelling(rule.ctx, "jax.numpy", "isin"))
        isin = updated.with_changes(func=func, args=new_args)
        return cst.Call(func=cst.Attribute(value=isin, attr=cst.Name("ravel")), args=[])

    return (Safety.SAFE, "jax.numpy.in1d was removed in jax 0.4.24; it was isin on the flattened first array: "
            "jax.numpy.isin(...).ravel() gives the same 1-D result", edit)


def _plan_msort(rule, call, args):
    """``jnp.msort(a)`` (NumPy's, which NumPy 2.0 removed, as jax did by 0.4.28) sorted
    along the first axis: ``jnp.sort(a, axis=0)``."""
    if set(args) != {"a"} or any(a.star for a in call.args):
        return "jax.numpy.msort takes one array"

    def edit(updated: cst.Call) -> cst.CSTNode:
        func = cst.parse_expression(member_spelling(rule.ctx, "jax.numpy", "sort"))
        value = updated.args[0].value
        return cst.Call(func=func, args=[
            cst.Arg(value, comma=SPACED_COMMA),
            cst.Arg(cst.Integer("0"), keyword=cst.Name("axis"), equal=TIGHT_EQUAL)])

    return Safety.SAFE, "jax.numpy.msort was removed (gone by jax 0.4.28); it was sort(a, axis=0)", edit


def _plan_pallas_repeat(rule, call, args):
    """``pltpu.repeat(x, repeats, axis)``: jax 0.10.0 defined it as ``jnp.tile`` with
    ``repeats`` on ``axis`` and 1 elsewhere (deprecated there, gone in 0.10.2), and the
    Mosaic primitive before that tiled the same way: ``repeats`` copies of ``x`` laid end
    to end along ``axis``, which is ``jnp.concatenate([x] * repeats, axis=axis)`` for any
    rank (both lower to Mosaic; checked for the tpu platform on jax 0.10.2)."""
    if set(args) != {"x", "repeats", "axis"} or any(a.star for a in call.args):
        return "pltpu.repeat takes (x, repeats, axis)"

    def edit(updated: cst.Call) -> cst.CSTNode:
        bound = bind_arguments(updated, ("x", "repeats", "axis"))
        func = cst.parse_expression(member_spelling(rule.ctx, "jax.numpy", "concatenate"))
        copies = cst.BinaryOperation(left=cst.List([cst.Element(bound["x"].value)]), operator=cst.Multiply(),
                                     right=_atom(bound["repeats"].value))
        return cst.Call(func=func, args=[
            cst.Arg(copies, comma=SPACED_COMMA),
            cst.Arg(bound["axis"].value, keyword=cst.Name("axis"), equal=TIGHT_EQUAL)])

    return (Safety.SAFE, "jax.experimental.pallas.tpu.repeat was removed in jax 0.10.2 (deprecated in 0.10.0 for "
            "jnp.tile); it laid `repeats` copies end to end along `axis`: jax.numpy.concatenate([x] * repeats, "
            "axis=axis)", edit)


def _plan_zeros_like_jaxval(rule, call, args):
    if set(args) != {"val"}:
        return "ad_util.zeros_like_jaxval takes one value"

    def edit(updated: cst.Call) -> cst.CSTNode:
        value = updated.args[0].value
        func = cst.parse_expression(rule.ctx.name_for("jax.lax.full_like"))
        return cst.Call(func=func, args=[cst.Arg(value, comma=SPACED_COMMA),
                                         cst.Arg(cst.Integer("0"))])

    return (Safety.SAFE, "jax.ad_util.zeros_like_jaxval was removed with the public jax.ad_util; it was the zeros "
            "of the value's aval (broadcast 0 of its dtype to its shape), as full_like(x, 0)", edit)


MAKE_SHAPED_ARRAY_HELPER = "_ccmigrate_make_shaped_array"
MAKE_SHAPED_ARRAY_CODE = f'''
def {MAKE_SHAPED_ARRAY_HELPER}(x):
    """jax.abstract_arrays.make_shaped_array (removed in jax 0.4.14) as it was defined (added by ccmigrate)."""
    import numpy as np
    from jax import dtypes
    from jax.core import ShapedArray

    return ShapedArray(np.shape(x), dtypes.canonicalize_dtype(dtypes.result_type(x)))
'''


def _plan_make_shaped_array(rule, call, args):
    """``make_shaped_array(x)`` was ``ShapedArray(np.shape(x), canonicalize_dtype(result_type(x)))``."""
    if set(args) != {"x"}:
        return "abstract_arrays.make_shaped_array takes one value"
    message = ("jax.abstract_arrays.make_shaped_array was removed in jax 0.4.14; written out as it was "
               "defined: ShapedArray(np.shape(x), canonicalize_dtype(result_type(x)))")
    if not _reread_safely(args["x"].value):
        # Its argument is read twice: a helper with that body evaluates it once, as the call did.
        def helper_edit(updated: cst.Call) -> cst.CSTNode:
            name = rule.ctx.add_helper(MAKE_SHAPED_ARRAY_HELPER, MAKE_SHAPED_ARRAY_CODE)
            return updated.with_changes(func=cst.Name(name), args=[updated.args[0].with_changes(keyword=None, equal=cst.MaybeSentinel.DEFAULT)])

        return Safety.SAFE, message + f" (in {MAKE_SHAPED_ARRAY_HELPER}, which evaluates the argument once)", helper_edit

    def edit(updated: cst.Call) -> cst.CSTNode:
        x = rule.ctx.module.code_for_node(updated.args[0].value)
        shaped, np_name, dtypes = (rule.ctx.name_for(n) for n in ("jax.core.ShapedArray", "numpy", "jax.dtypes"))
        return cst.parse_expression(f"{shaped}({np_name}.shape({x}), {dtypes}.canonicalize_dtype({dtypes}.result_type({x})))")

    return Safety.SAFE, message, edit


STANDARD_PRIMITIVE_HELPER = "_ccmigrate_standard_primitive"
STANDARD_PRIMITIVE_CODE = f'''
def {STANDARD_PRIMITIVE_HELPER}(shape_rule, dtype_rule, name, multiple_results=False):
    """jax.lax.standard_primitive (removed in jax 0.4.24) on public APIs (added by ccmigrate): a primitive run by
    compiling it alone, whose outputs' shapes and dtypes come from the two rules, weakly typed when every
    operand is."""
    from functools import partial

    from jax.core import ShapedArray
    from jax.extend.core import Primitive
    from jax.interpreters import xla

    def abstract_eval(*avals, **params):
        shapes, dtypes = shape_rule(*avals, **params), dtype_rule(*avals, **params)
        weak_type = all(aval.weak_type for aval in avals)
        if multiple_results:
            return [ShapedArray(s, d, weak_type=weak_type) for s, d in zip(shapes, dtypes, strict=True)]
        return ShapedArray(shapes, dtypes, weak_type=weak_type)

    prim = Primitive(name)
    prim.multiple_results = multiple_results
    prim.def_impl(partial(xla.apply_primitive, prim))
    prim.def_abstract_eval(abstract_eval)
    return prim
'''

NARYOP_DTYPE_RULE_HELPER = "_ccmigrate_naryop_dtype_rule"
NARYOP_DTYPE_RULE_CODE = f'''
def {NARYOP_DTYPE_RULE_HELPER}(result_dtype, accepted_dtypes, name, *avals, require_same=True, **params):
    """jax.lax.naryop_dtype_rule (removed in jax 0.4.24) on public APIs (added by ccmigrate): each operand's dtype
    must be a subtype of one accepted at its position, and all the same; result_dtype(*avals) is the answer."""
    from jax import dtypes

    if len(avals) != len(accepted_dtypes):
        raise TypeError(f"{{name}} takes {{len(accepted_dtypes)}} operands, got {{len(avals)}}")
    for i, (aval, accepted) in enumerate(zip(avals, accepted_dtypes)):
        if not any(dtypes.issubdtype(aval.dtype, t) for t in accepted):
            names = ", ".join(t.__name__ for t in accepted)
            raise TypeError(f"{{name}} does not accept dtype {{aval.dtype}} at position {{i}}: "
                            f"accepted dtypes there are subtypes of {{names}}")
    if require_same and len({{aval.dtype for aval in avals}}) > 1:
        raise TypeError(f"{{name}} requires its operands to have the same dtype, got "
                        f"{{', '.join(str(aval.dtype) for aval in avals)}}")
    return result_dtype(*avals)
'''
_STANDARD_PRIMITIVE_PARAMS = ("shape_rule", "dtype_rule", "name", "translation_rule", "multiple_results",
                              "weak_type_rule", "named_shape_rule")


def _plan_standard_primitive(rule, call, args):
    """``lax.standard_primitive(shape_rule, dtype_rule, name)`` built a Primitive evaluated
    by ``apply_primitive`` with ``standard_abstract_eval`` over the two rules (and, up to
    jax 0.4.13, registered ``translation_rule`` or an XLA op named after the primitive)."""
    if any(a.keyword is None for a in call.args[3:]):
        return "its fourth argument changed meaning across releases (translation_rule, then weak_type_rule): name it"
    if set(args) - {"shape_rule", "dtype_rule", "name", "multiple_results", "translation_rule"} \
            or not {"shape_rule", "dtype_rule", "name"} <= set(args):
        return "only a shape rule, a dtype rule, a name and multiple_results= are rewritten"
    translation = args.get("translation_rule")
    if translation is not None and not (isinstance(translation.value, cst.Name) and translation.value.value == "None"):
        return ("it also registered translation_rule, an XlaBuilder rule jax removed in 0.4.29: build the primitive "
                "with jax.extend.core.Primitive and register an MLIR lowering with mlir.register_lowering")
    message = ("jax.lax.standard_primitive was removed in jax 0.4.24 (an internal API); "
               f"{STANDARD_PRIMITIVE_HELPER} builds the same primitive on public APIs: jax.extend.core.Primitive, "
               "xla.apply_primitive as its implementation, the shape and dtype rules as its abstract evaluation")

    def edit(updated: cst.Call) -> cst.CSTNode:
        name = rule.ctx.add_helper(STANDARD_PRIMITIVE_HELPER, STANDARD_PRIMITIVE_CODE)
        kept = [a for a in updated.args if not (a.keyword is not None and a.keyword.value == "translation_rule")]
        if len(kept) < len(updated.args):  # translation_rule=None goes, with the comma before it
            kept[-1] = kept[-1].with_changes(comma=updated.args[-1].comma)
        return updated.with_changes(func=cst.Name(name), args=kept)

    return Safety.SAFE, message, edit


def _plan_naryop_dtype_rule(rule, call, args):
    def edit(updated: cst.Call) -> cst.CSTNode:
        return updated.with_changes(func=cst.Name(rule.ctx.add_helper(NARYOP_DTYPE_RULE_HELPER, NARYOP_DTYPE_RULE_CODE)))

    return (Safety.SAFE, f"jax.lax.naryop_dtype_rule was removed in jax 0.4.24 (an internal API); "
            f"{NARYOP_DTYPE_RULE_HELPER} makes the same checks and returns result_dtype(*avals)", edit)


DEVICE_PUT_REPLICATED_HELPER = "_ccmigrate_device_put_replicated"
DEVICE_PUT_REPLICATED_CODE = f'''
def {DEVICE_PUT_REPLICATED_HELPER}(x, devices):
    """jax.device_put_replicated (removed in jax 0.10.0) on public APIs (added by ccmigrate): each leaf of x
    stacked once per device along a new leading axis, each slice on its device of ``devices``, as jax built
    it (a NamedSharding over a mesh of ``devices``)."""
    from collections.abc import Sequence

    import jax
    import numpy as np

    if not isinstance(devices, Sequence) or not devices:
        raise ValueError("`devices` argument to `device_put_replicated must be a non-empty sequence.")
    axis = "_device_put_replicated"
    sharding = jax.sharding.NamedSharding(jax.sharding.Mesh(np.array(devices), (axis,)),
                                          jax.sharding.PartitionSpec(axis))

    def replicate(leaf):
        if isinstance(leaf, (np.ndarray, jax.Array)):
            first = jax.device_put(leaf[None], devices[0])
        else:
            first = jax.device_put(leaf, devices[0])[None]
        shape = (len(devices),) + first.shape[1:]
        if jax.typeof(first).weak_type:
            # Built from pieces, an array is never weakly typed: broadcast the (scalar) value instead.
            return jax.device_put(jax.numpy.broadcast_to(first, shape), sharding)
        return jax.make_array_from_single_device_arrays(shape, sharding, [jax.device_put(first, d) for d in devices])

    return jax.tree_util.tree_map(replicate, x)
'''


DEVICE_PUT_SHARDED_HELPER = "_ccmigrate_device_put_sharded"
DEVICE_PUT_SHARDED_CODE = f'''
def {DEVICE_PUT_SHARDED_HELPER}(shards, devices):
    """jax.device_put_sharded (removed in jax 0.10.0) on public APIs (added by ccmigrate): the i-th shard (or
    each leaf of it) on the i-th device, stacked along a new leading axis, as jax built it (a NamedSharding
    over a mesh of ``devices``)."""
    from collections.abc import Sequence

    import jax
    import numpy as np

    if not isinstance(shards, Sequence):
        raise TypeError(f"device_put_sharded `shards` input must be a sequence; got {{type(shards)}}")
    if len(shards) != len(devices):
        raise ValueError(f"len(shards) = {{len(shards)}} must equal len(devices) = {{len(devices)}}.")
    axis = "_device_put_sharded"
    sharding = jax.sharding.NamedSharding(jax.sharding.Mesh(np.array(devices), (axis,)),
                                          jax.sharding.PartitionSpec(axis))

    def stack(*xs):
        avals = [jax.typeof(x) for x in xs]
        for a1, a2 in zip(avals[:-1], avals[1:]):
            if a1 != a2:
                raise ValueError("the shards passed to device_put_sharded must have consistent shape and dtype, "
                                 f"but got {{a1}} and {{a2}}.")
        shape = (len(devices),) + avals[0].shape
        if avals[0].weak_type:
            # Built from pieces, an array is never weakly typed: stack the (scalar) values instead.
            return jax.device_put(jax.numpy.stack([jax.numpy.asarray(x) for x in xs]), sharding)
        pieces = [jax.device_put((x if isinstance(x, (np.ndarray, jax.Array)) else np.asarray(x))[None], d)
                  for x, d in zip(xs, devices)]
        return jax.make_array_from_single_device_arrays(shape, sharding, pieces)

    return jax.tree_util.tree_map(stack, *shards)
'''

#: The two pmap-era placement functions jax 0.10.0 removed (deprecated in 0.8.1): name ->
#: (parameters, helper, its code).
DEVICE_PUTS = {
    "device_put_replicated": (("x", "devices"), DEVICE_PUT_REPLICATED_HELPER, DEVICE_PUT_REPLICATED_CODE),
    "device_put_sharded": (("shards", "devices"), DEVICE_PUT_SHARDED_HELPER, DEVICE_PUT_SHARDED_CODE),
}


def _plan_device_put(name: str) -> Callable:
    """``jax.device_put_replicated(x, devices)`` / ``device_put_sharded(shards,
    devices)``: their last implementation (jax 0.8.1-0.9, still in 0.10's private
    ``jax._src.api``) stacked the values along a new leading axis under a NamedSharding
    over a mesh of the devices; the helpers build the same arrays on public APIs (checked
    leaf by leaf against that implementation: aval with weak type, sharding, shard devices
    and indices, values, also for PRNG keys)."""
    params, helper, code = DEVICE_PUTS[name]

    def plan(rule, call, args):
        if set(args) != set(params):
            return f"jax.{name} takes ({', '.join(params)})"

        def edit(updated: cst.Call) -> cst.CSTNode:
            return updated.with_changes(func=cst.Name(rule.ctx.add_helper(helper, code)))

        return (Safety.SAFE, f"jax.{name} was removed in jax 0.10.0; {helper} builds the arrays its last "
                "implementation did (a NamedSharding over a mesh of the devices) on public APIs", edit)

    return plan


XMAP_HELPER = "_ccmigrate_xmap"
XMAP_CODE = f'''
def {XMAP_HELPER}(fun, in_axes, out_axes, axis_resources):
    """jax.experimental.maps.xmap (removed in jax 0.4.31) on public APIs (added by ccmigrate), for one named
    axis in front of the arguments it maps and of every result, laid out over one mesh axis: ``fun`` runs on
    each slice along that axis without it, as xmap ran it, inside jax.shard_map over the mesh that
    ``with mesh:`` (or jax.set_mesh) set when the mapped function is called."""
    import warnings

    import jax

    ((name, mesh_axis),) = axis_resources.items()

    def maps_front(spec):
        names = [n for n in (spec.values() if isinstance(spec, dict) else spec) if n is not None and n is not ...]
        if not names:
            return False
        first = spec.get(0) if isinstance(spec, dict) else spec[0]
        if names != [name] or first != name:
            raise NotImplementedError(f"{XMAP_HELPER} maps only the first axis, named {{name!r}}: got {{spec!r}}")
        return True

    # One entry per argument, or one entry alone (names, None or ..., or a dict) for every argument.
    lone = isinstance(in_axes, dict) or all(n is None or n is ... or isinstance(n, str) for n in in_axes)
    mapped = maps_front(in_axes) if lone else [maps_front(spec) for spec in in_axes]
    # One entry for every result, or a tuple/list of entries, one per result.
    outs = out_axes if isinstance(out_axes, (list, tuple)) and out_axes and all(
        isinstance(entry, (dict, list, tuple)) for entry in out_axes) else [out_axes]
    if not all(maps_front(entry) for entry in outs):
        raise NotImplementedError(f"{XMAP_HELPER} needs the named axis {{name!r}} first in out_axes")
    spec = jax.sharding.PartitionSpec

    def mapped_fun(*args):
        if not lone and len(args) != len(in_axes):
            raise TypeError(f"in_axes has {{len(in_axes)}} entries, the call passed {{len(args)}} arguments")
        flags = [mapped] * len(args) if lone else mapped

        def per_device(*local):
            blocks = [a for a, m in zip(local, flags) if m]

            def one(slices):
                rest = iter(slices)
                return fun(*(next(rest) if m else a for a, m in zip(local, flags)))

            if jax.tree_util.tree_leaves(blocks)[0].shape[0] == 1:  # one slice on each device
                out = one([jax.tree_util.tree_map(lambda a: a[0], b) for b in blocks])
                return jax.tree_util.tree_map(lambda o: o[None], out)
            return jax.lax.map(one, blocks)

        mesh = None
        if jax.sharding.get_abstract_mesh().empty:  # no jax.set_mesh: the mesh of ``with mesh:``
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", DeprecationWarning)
                mesh = jax.interpreters.pxla.thread_resources.env.physical_mesh
        return jax.shard_map(per_device, mesh=mesh, in_specs=tuple(spec(mesh_axis) if m else spec() for m in flags),
                             out_specs=spec(mesh_axis), check_vma=False)(*args)

    return mapped_fun
'''

#: Collectives that name an axis: under xmap they reduced over every slice of the named
#: axis, inside the helper over the devices of the mesh axis (the same when each device
#: holds one slice).
COLLECTIVES = frozenset((
    "psum", "pmean", "pmax", "pmin", "all_gather", "all_to_all", "ppermute", "pshuffle", "pswapaxes",
    "axis_index", "psum_scatter", "pbroadcast", "axis_size", "pdot"))


def _xmap_entry(node: cst.BaseExpression) -> Optional[list]:
    """The axis names of a literal xmap axes entry, by position (None: unnamed, or ``...``);
    None when it is not such a literal (``('x', None)``, ``['x', ...]``, ``{0: 'x'}``)."""
    def name(value):
        if isinstance(value, cst.Name) and value.value == "None" or isinstance(value, cst.Ellipsis):
            return None
        if isinstance(value, cst.SimpleString):
            return value.evaluated_value
        raise ValueError
    try:
        if isinstance(node, (cst.Tuple, cst.List)):
            if any(not isinstance(e, cst.Element) for e in node.elements):
                return None
            return [name(e.value) for e in node.elements]
        if isinstance(node, cst.Dict):
            entries = {}
            for e in node.elements:
                if not isinstance(e, cst.DictElement) or not isinstance(e.key, cst.Integer):
                    return None
                entries[int(e.key.value)] = name(e.value)
            return [entries.get(i) for i in range(max(entries, default=-1) + 1)]
    except ValueError:
        return None
    return None


def _plan_xmap(rule, call, args):
    """``xmap(f, in_axes, out_axes, axis_resources={name: mesh_axis})`` with one named axis
    in front of each argument it maps and of every result (the shape of jax's own custom-op
    tutorial, RMS norm over the devices of ``with Mesh(devices, ("x",)):``). xmap traced
    ``f`` on the arguments without the named axis and ran it on each slice; with the axis
    laid out over the mesh axis and one slice per device (the tutorial's reshape to
    ``(device_count, ...)``), each device ran it on its own slice, so a custom call in
    ``f`` needs no batching rule. The helper does the same in jax.shard_map (public from
    jax 0.6.1) over the mesh ``with mesh:`` set (read when called, as xmap read it), or the
    one jax.set_mesh set; a device holding several slices maps ``f`` over them with
    jax.lax.map."""
    shape = "only xmap(f, in_axes, out_axes, axis_resources={name: mesh_axis}) with literal axes is rewritten"
    if set(args) != {"fun", "in_axes", "out_axes", "axis_resources"} or any(a.star for a in call.args):
        return shape
    in_node = args["in_axes"].value
    # One entry alone (``['batch', ...]``, ``('x', None)``, ``{0: 'x'}``): xmap took it for
    # every argument.
    lone = isinstance(in_node, cst.Dict) or isinstance(in_node, (cst.Tuple, cst.List)) and all(
        isinstance(e, cst.Element) and not isinstance(e.value, (cst.Tuple, cst.List, cst.Dict)) for e in in_node.elements)
    if not lone and (not isinstance(in_node, (cst.Tuple, cst.List))
                     or any(not isinstance(e, cst.Element) for e in in_node.elements)):
        return shape + " (in_axes: one entry per argument, or one entry for all)"
    resources = args["axis_resources"].value
    if not (isinstance(resources, cst.Dict) and len(resources.elements) == 1
            and isinstance(resources.elements[0], cst.DictElement)
            and isinstance(resources.elements[0].key, cst.SimpleString)
            and isinstance(resources.elements[0].value, cst.SimpleString)):
        return "only one named axis laid out over one mesh axis (axis_resources={'x': 'x'}) is rewritten"
    name = resources.elements[0].key.evaluated_value
    entries = [_xmap_entry(in_node)] if lone else [_xmap_entry(e.value) for e in in_node.elements]
    out_node = args["out_axes"].value
    # One entry for every result, or a tuple/list of entries (each itself a display), one per result.
    out_nodes = [e.value for e in out_node.elements] if isinstance(out_node, (cst.Tuple, cst.List)) and out_node.elements \
        and all(isinstance(e, cst.Element) and isinstance(e.value, (cst.Tuple, cst.List, cst.Dict)) for e in out_node.elements) \
        else [out_node]
    outs = [_xmap_entry(o) for o in out_nodes]
    for entry in (*entries, *outs):
        if entry is None:
            return shape + " (each axes entry a literal tuple, list or {position: name} dict)"
        named = [n for n in entry if n is not None]
        if named and (named != [name] or entry[0] != name):
            return f"only the named axis {name!r}, first in each argument it maps, is rewritten"
    if any(name not in out for out in outs):
        return f"only results with the named axis {name!r} first (out_axes) are rewritten"
    if not any(name in entry for entry in entries):
        return f"no argument maps the named axis {name!r}"
    message = (f"jax.experimental.maps.xmap was removed in jax 0.4.31; {XMAP_HELPER} runs the function on each "
               "slice along the named axis inside jax.shard_map over the mesh `with mesh:` set, as xmap did")
    used = walk.names_in(rule.ctx.module) & COLLECTIVES
    safety = Safety.SAFE
    if used:
        safety = Safety.UNSAFE
        message += (f"; this module uses {', '.join(sorted(used))}: over the named axis xmap reduced across "
                    "every slice, inside the helper across the devices of the mesh axis, the same only when each "
                    "device holds one slice")

    def edit(updated: cst.Call) -> cst.CSTNode:
        return updated.with_changes(func=cst.Name(rule.ctx.add_helper(XMAP_HELPER, XMAP_CODE)))

    return safety, message, edit


def _plan_axis_primitive(rule, call, args):
    """``AxisPrimitive(name)``: a Primitive whose bind also looked for the traces of named
    axes its jaxpr parameters used. Stackless tracing (jax 0.4.36) made every primitive
    bind to the current trace and removed the class; jax's own (cond, while, scan, psum,
    pjit...) became plain ``Primitive``s in that release."""
    if set(args) != {"name"}:
        return "AxisPrimitive takes the primitive's name alone"

    def edit(updated: cst.Call) -> cst.CSTNode:
        return updated.with_changes(func=cst.parse_expression(member_spelling(rule.ctx, "jax.extend.core", "Primitive")))

    return (Safety.SAFE, "AxisPrimitive was removed in jax 0.4.36, when stackless tracing made every primitive bind to "
            "the current trace and jax turned its own (cond, while, scan, psum, pjit...) into plain primitives; "
            "this one becomes jax.extend.core.Primitive the same way", edit)


#: ``jax.ops.index_<op>(x, idx, y)`` -> ``.at[idx].<method>(y)`` (jax's deprecation message).
INDEX_OPS = {"index_update": "set", "index_add": "add", "index_mul": "multiply", "index_min": "min",
             "index_max": "max"}
INDEX_PARAMS = ("x", "idx", "y", "indices_are_sorted", "unique_indices")


def _plan_index_op(op: str):
    method = INDEX_OPS[op]

    def plan(rule, call, args):
        if not {"x", "idx", "y"} <= set(args):
            return f"jax.ops.{op} takes (x, idx, y)"
        # The helper took any array-like x (NumPy arrays, lists) as jnp.asarray does; a
        # value jax.numpy or lax just computed is a jax array already.
        value = args["x"].value
        jax_array = isinstance(value, cst.Call) and (rule.ctx.qualified_name(value.func) or "").startswith(
            ("jax.numpy.", "jax.lax."))
        original_idx = args["idx"].value
        inline_index = isinstance(original_idx, cst.Subscript) and \
            rule.ctx.qualified_name(original_idx.value) == "jax.ops.index"

        def edit(updated: cst.Call) -> cst.CSTNode:
            bound = bind_arguments(updated, INDEX_PARAMS)
            code = rule.ctx.module.code_for_node
            idx = bound["idx"].value
            if inline_index and isinstance(idx, cst.Subscript):
                index_text = ", ".join(code(element).rstrip().rstrip(",") for element in idx.slice)
            else:
                index_text = code(idx)
            x = bound["x"].value
            if jax_array:
                receiver = code(_atom(x))
            else:
                receiver = f"{rule.ctx.name_for('jax.numpy.asarray')}({code(x)})"
            extra = "".join(f", {name}={code(bound[name].value)}" for name in ("indices_are_sorted", "unique_indices")
                            if name in bound)
            return cst.parse_expression(f"{receiver}.at[{index_text}].{method}({code(bound['y'].value)}{extra})")

        return (Safety.SAFE, f"jax.ops.{op} was removed in jax 0.3.2 (deprecated in 0.2.22 for x.at[idx].{method}(y)); "
                f"jnp.asarray(x).at[idx].{method}(y) scatters the same way, for any array-like x", edit)

    return plan


def _index_op_value(op: str) -> Callable:
    """``jax.ops.index_update`` read as a value: a lambda with its whole signature (the
    keywords defaulted to False, as the helper's did)."""
    method = INDEX_OPS[op]

    def value(rule) -> str:
        return (f"lambda x, idx, y, indices_are_sorted=False, unique_indices=False: "
                f"{rule.ctx.name_for('jax.numpy.asarray')}(x).at[idx].{method}("
                "y, indices_are_sorted=indices_are_sorted, unique_indices=unique_indices)")

    return value


def _reread_safely(node: cst.BaseExpression) -> bool:
    """A name, attribute or literal, or one subscripted by such: reading it again reads
    the same value."""
    if isinstance(node, cst.Subscript) and len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Index):
        return _pure(node.value) and _pure(node.slice[0].slice.value)
    return _pure(node)


def _plan_x64(value: Optional[bool]):
    """``with enable_x64(v):`` / ``with disable_x64():`` -> ``with jax.enable_x64(v):``."""

    def plan(rule, call, args):
        parent = rule.ctx.ancestors_of(call)[-1]
        if not isinstance(parent, cst.WithItem) or parent.item is not call:
            return "only `with ...:` has an exact equivalent (jax.enable_x64 is no decorator)"

        def edit(updated: cst.Call) -> cst.CSTNode:
            func = cst.parse_expression(rule.ctx.name_for("jax.enable_x64"))
            if value is not None:
                flag: cst.BaseExpression = cst.Name(str(value))
            else:
                bound = bind_arguments(updated, ("new_val",))
                flag = bound["new_val"].value if bound else cst.Name("True")
            return cst.Call(func=func, args=[cst.Arg(flag)])

        return (Safety.SAFE, "jax.experimental.enable_x64/disable_x64 were removed in jax 0.9.0; they entered "
                "the same config context as jax.enable_x64(True/False)", edit)

    return plan


def _plan_maps_mesh(rule, call, args):
    """``with maps.mesh(devices, axis_names):`` -> ``with jax.sharding.Mesh(devices,
    axis_names):``. ``maps.mesh`` was a generator context manager whose body was ``with
    Mesh(devices, axis_names): yield``, so entering the Mesh itself sets the same physical
    mesh (``thread_resources``) for pjit and xmap. It yielded None where ``Mesh.__enter__``
    returns the mesh: a ``with ... as name:`` stays manual."""
    parent = rule.ctx.ancestors_of(call)[-1]
    if not isinstance(parent, cst.WithItem) or parent.item is not call or parent.asname is not None:
        return ("only `with maps.mesh(devices, axis_names):` (no `as`) has an exact equivalent: "
                "`with jax.sharding.Mesh(devices, axis_names):`")
    if set(args) != {"devices", "axis_names"}:
        return "jax.experimental.maps.mesh takes (devices, axis_names)"

    def edit(updated: cst.Call) -> cst.CSTNode:
        return updated.with_changes(func=cst.parse_expression(member_spelling(rule.ctx, "jax.sharding", "Mesh")))

    return (Safety.SAFE, "jax.experimental.maps.mesh was removed in jax 0.4.0 (deprecated for `with Mesh(...)`); "
            "it entered jax.sharding.Mesh(devices, axis_names), which sets the same mesh for the block (jax "
            "0.8 deprecates `with mesh:` for jax.set_mesh, which pjit-era code reading the physical mesh does "
            "not see)", edit)


_SHAPED_ARRAY_PARAMS = ("shape", "dtype", "weak_type", "named_shape")


def _plan_full_like_aval(rule, call, args):
    """``mlir.full_like_aval([ctx,] value, aval)`` -> ``mlir.ir_constant(np.broadcast_to(...))``.

    jax defined it as a scalar ``ir_constant(np.array(value, aval.dtype))`` broadcast to
    ``aval.shape`` (``BroadcastOp`` before, ``broadcast_in_dim`` with no dimensions
    after); ``ir_constant`` of a zero-stride NumPy array emits that same scalar constant
    and ``broadcast_in_dim``. ``ctx`` only served dynamic shapes.
    """
    if set(args) == {"ctx", "value"} and all(a.keyword is None for a in call.args):
        args = {"value": args["ctx"], "aval": args["value"]}  # the 2022 form: (value, aval)
    elif set(args) == {"ctx", "value", "aval"}:
        if not _pure(args["ctx"].value):
            return "its context argument is an expression the rewrite would no longer evaluate"
    elif set(args) != {"value", "aval"}:
        return "full_like_aval takes ([ctx,] value, aval)"
    aval = args["aval"].value
    shape = dtype = None
    if isinstance(aval, cst.Call) and (rule.ctx.qualified_name(aval.func) or "").endswith(".ShapedArray"):
        bound = bind_arguments(aval, _SHAPED_ARRAY_PARAMS)
        if bound is not None and "shape" in bound and "dtype" in bound:
            shape, dtype = bound["shape"].value, bound["dtype"].value
    if shape is None:
        if not (_pure(aval) or isinstance(aval, cst.Subscript) and _pure(aval.value) and len(aval.slice) == 1
                and isinstance(aval.slice[0].slice, cst.Index) and _pure(aval.slice[0].slice.value)):
            return ("its aval is an expression read twice by the rewrite (dtype and shape): bind it to a name, or "
                    "build `mlir.ir_constant(np.broadcast_to(np.array(value, aval.dtype), aval.shape))`")
        shape = cst.Attribute(value=aval, attr=cst.Name("shape"))
        dtype = cst.Attribute(value=aval, attr=cst.Name("dtype"))
    value = args["value"].value

    def edit(updated: cst.Call) -> cst.CSTNode:
        func = updated.func
        if isinstance(func, cst.Attribute):
            func = func.with_changes(attr=cst.Name("ir_constant"))
        else:
            func = cst.parse_expression(rule.ctx.name_for("jax.interpreters.mlir.ir_constant"))
        comma = SPACED_COMMA
        array = cst.Call(func=cst.parse_expression(rule.ctx.name_for("numpy.array")),
                         args=[cst.Arg(value.deep_clone(), comma=comma), cst.Arg(dtype.deep_clone())])
        broadcast = cst.Call(func=cst.parse_expression(rule.ctx.name_for("numpy.broadcast_to")),
                             args=[cst.Arg(array, comma=comma), cst.Arg(shape.deep_clone())])
        return cst.Call(func=func, args=[cst.Arg(broadcast)])

    return (Safety.SAFE, "mlir.full_like_aval was removed from jax; it broadcast the scalar np.array(value, "
            "aval.dtype) to aval.shape, which mlir.ir_constant of a broadcast NumPy array emits the same way "
            "(a scalar stablehlo.constant and a broadcast_in_dim)", edit,
            "the same constant operand (value broadcast to the aval's shape and dtype)")


#: Platforms ``mlir.register_lowering`` accepted once and now rejects (jax 0.10.2 knows cpu,
#: cuda, rocm, gpu, oneapi, tpu and installed plugins).
GONE_PLATFORMS = {"interpreter": "the reference interpreter backend was removed"}
#: Config options that configured only features jax removed: setting one is dropped.
GONE_OPTIONS = {
    "experimental_xmap_spmd_lowering": "it configured xmap's SPMD lowering, and xmap is gone from jax",
    "experimental_xmap_spmd_lowering_manual": "it configured xmap's SPMD lowering, and xmap is gone from jax",
    "jax_spmd_mode": "open-source jax stopped reading it by 0.4.28 (math on arrays that are not fully addressable "
                     "is allowed without it)",
}
#: Context managers that did nothing on open-source jax long before jax removed them:
#: ``with C(...):`` is its block alone. qualified name -> (removed in, a no-op since, why).
NO_OP_CONTEXTS = {
    "jax.spmd_mode": ("0.6.0", "0.4.28", "open-source jax stopped reading the option by 0.4.28 (its check was a "
                                         "no-op there, and 0.5.3 defines it without reading it): math on arrays "
                                         "that are not fully addressable is allowed without it"),
}
#: Options jax removed once only one value was allowed: setting that value (the literal
#: given) is dropped; setting another one raised already, and is reported.
FORCED_OPTIONS = {
    "jax_array": ("True", "jax.Array could not be disabled from jax 0.4.7 on (update raised ValueError for False), "
                  "and jax 0.4.14 removed the option"),
}

#: Keywords jax removed from callables it kept: callable -> {keyword: (removed by, why
#: dropping it keeps the behaviour)}. Reached also through a moved name of the callable.
DROPPED_KEYWORDS: dict[str, dict[str, tuple[tuple[int, ...], str]]] = {
    "jax.core.ShapedArray": {"named_shape": (
        (0, 5, 0), "named shapes only carried xmap's named axes, removed with xmap; every other aval had an empty one")},
}
_DROPPED_KEYWORD_NAMES = frozenset(k for keywords in DROPPED_KEYWORDS.values() for k in keywords)


def _drop_keywords(call: cst.Call, names: set[str]) -> cst.Call:
    kept = [a for a in call.args if a.keyword is None or a.keyword.value not in names]
    if kept and len(kept) < len(call.args) and call.args[-1] is not kept[-1]:
        # The last argument went: the one now last keeps the trailing comma style of the call.
        last = call.args[-1]
        kept[-1] = kept[-1].with_changes(comma=last.comma if isinstance(last.comma, cst.Comma) else cst.MaybeSentinel.DEFAULT)
    return call.with_changes(args=kept)


CALLS: dict[str, CallRewrite] = {
    "jax.interpreters.batching.moveaxis": CallRewrite(ANY, "0.9.0", ("x", "src", "dst"), _plan_moveaxis),
    # permutation's independent= exists from jax 0.2.x; 0.4.0 is the oldest release checked.
    "jax.random.shuffle": CallRewrite((0, 4, 0), "0.5.3 or earlier", ("key", "x", "axis"), _plan_shuffle),
    "jax.dlpack.to_dlpack": CallRewrite((0, 4, 16), "0.7.0", ("x", "stream"), _plan_to_dlpack),
    # The same class under its private homes (``from jax._src import ad_util``), as
    # jaxpr-transform prototypes read it.
    **{f"{home}.Zero.from_value": CallRewrite((0, 6, 0), "0.4.35", ("val",), _plan_zero_from_value)
       for home in ("jax.interpreters.ad", "jax._src.ad_util", "jax._src.interpreters.ad")},
    "jax.interpreters.ad.Zero.from_primal_value": CallRewrite((0, 6, 0), "0.10.0", ("val",),
                                                              _plan_zero_from_primal_value),
    "jax.core.raise_to_shaped": CallRewrite((0, 4, 36), "0.6.0", ("aval", "weak_type"),
                                            _plan_identity("jax.core.raise_to_shaped", "0.6.0", "aval"),
                                            value="lambda aval: aval", value_why=_IDENTITY_WHY),
    "jax._src.core.raise_to_shaped": CallRewrite((0, 4, 36), "0.6.0", ("aval", "weak_type"),
                                                 _plan_identity("jax._src.core.raise_to_shaped", "0.6.0", "aval"),
                                                 value="lambda aval: aval", value_why=_IDENTITY_WHY),
    # jax/abstract_arrays.py: ``raise_to_shaped = core.raise_to_shaped``.
    "jax.abstract_arrays.raise_to_shaped": CallRewrite(
        (0, 4, 36), "0.4.14", ("aval", "weak_type"),
        _plan_identity("jax.abstract_arrays.raise_to_shaped", "0.4.14", "aval"), value="lambda aval: aval",
        value_why=_IDENTITY_WHY),
    "jax.core.full_lower": CallRewrite((0, 4, 36), "0.6.0", ("x",),
                                       _plan_identity("jax.core.full_lower", "0.6.0", "x"), value="lambda x: x",
                                       value_why=_IDENTITY_WHY),
    "jax.lax.tie_in": CallRewrite(ANY, "0.4.29", ("x", "y"), _plan_tie_in),
    "jax.interpreters.xla.abstractify": CallRewrite((0, 6, 0), "0.7.0", ("x",), _plan_abstractify),
    "jax.lax.zeros_like_array": CallRewrite(ANY, "0.9.0", ("x",), _plan_zeros_like_array),
    "jax._src.ad_checkpoint._optimization_barrier": CallRewrite(
        (0, 4, 32), "0.4.32 or later", ("arg",), _plan_optimization_barrier,
        value=lambda rule: rule.ctx.name_for("jax.lax.optimization_barrier"),
        value_why="the public function does what the private one did (flatten, bind, unflatten)"),
    "jax.interpreters.mlir.flatten_lowering_ir_args": CallRewrite((0, 4, 31), "0.7.0", ("xs",),
                                                                  _plan_flatten_lowering_ir_args),
    "jax._src.interpreters.mlir.flatten_lowering_ir_args": CallRewrite((0, 4, 31), "0.4.31", ("xs",),
                                                                       _plan_flatten_lowering_ir_args),
    "jax.ad_util.zeros_like_jaxval": CallRewrite(ANY, "0.4.24 or earlier", ("val",), _plan_zeros_like_jaxval),
    "jax.numpy.in1d": CallRewrite(ANY, "0.4.24", ("ar1", "ar2", "assume_unique", "invert", "method"), _plan_in1d),
    "jax.numpy.msort": CallRewrite(ANY, "0.4.28 or earlier", ("a",), _plan_msort),
    "jax.experimental.pallas.tpu.repeat": CallRewrite(ANY, "0.10.2", ("x", "repeats", "axis"), _plan_pallas_repeat),
    "jax.abstract_arrays.make_shaped_array": CallRewrite((0, 4, 0), "0.4.14", ("x",), _plan_make_shaped_array),
    # ``jax/core.py`` held jax's core until it moved to ``jax._src.core`` (after 0.4.1, by 0.4.10).
    **{f"{module}.AxisPrimitive": CallRewrite(
        (0, 4, 36), "0.4.36", ("name",), _plan_axis_primitive,
        value=lambda rule: member_spelling(rule.ctx, "jax.extend.core", "Primitive"),
        value_why="jax.extend.core.Primitive, the class jax's own axis primitives became")
       for module in ("jax._src.core", "jax.core")},
    # jax.lax re-exported both from jax._src until 0.4.23 (deprecated in 0.4.18); jax.lax.lax
    # was their module up to 0.2.x.
    **{f"{module}.standard_primitive": CallRewrite((0, 4, 36), "0.4.24", _STANDARD_PRIMITIVE_PARAMS,
                                                   _plan_standard_primitive)
       for module in ("jax.lax", "jax.lax.lax")},
    # jax.typeof (the helper's weak-type test) is public from jax 0.6.0 on.
    **{f"jax.{name}": CallRewrite(
        (0, 6, 0), "0.10.0", params, _plan_device_put(name),
        value=lambda rule, helper=helper, code=code: rule.ctx.add_helper(helper, code),
        value_why=f"{helper}, the same arrays on public APIs")
       for name, (params, helper, code) in DEVICE_PUTS.items()},
    **{f"{module}.naryop_dtype_rule": CallRewrite(
        (0, 4, 36), "0.4.24", ("result_dtype", "accepted_dtypes", "name"), _plan_naryop_dtype_rule,
        value=lambda rule: rule.ctx.add_helper(NARYOP_DTYPE_RULE_HELPER, NARYOP_DTYPE_RULE_CODE),
        value_why=f"{NARYOP_DTYPE_RULE_HELPER}, the same checks on public APIs")
       for module in ("jax.lax", "jax.lax.lax")},
    # ``.at[...]`` with every method and keyword below is in jax from 0.2.x; 0.4.0 is the
    # oldest release these were checked on.
    **{f"jax.ops.{op}": CallRewrite((0, 4, 0), "0.3.2", INDEX_PARAMS, _plan_index_op(op), value=_index_op_value(op),
                                     value_why=f"`lambda x, idx, y, ...: jnp.asarray(x).at[idx].{INDEX_OPS[op]}(y, ...)`, "
                                               "its two keywords passed on with the old defaults")
       for op in INDEX_OPS},
    # jax.shard_map (with check_vma=) is public from jax 0.6.1.
    "jax.experimental.maps.xmap": CallRewrite((0, 6, 1), "0.4.31", (
        "fun", "in_axes", "out_axes", "axis_sizes", "axis_resources", "donate_argnums", "backend"), _plan_xmap),
    # jax.sharding.Mesh is a context manager setting the physical mesh from jax 0.4.1.
    "jax.experimental.maps.mesh": CallRewrite((0, 4, 1), "0.4.0", ("devices", "axis_names"), _plan_maps_mesh),
    "jax.interpreters.mlir.full_like_aval": CallRewrite(ANY, "<0.4.28", ("ctx", "value", "aval"), _plan_full_like_aval),
    **{f"jax.experimental{m}.enable_x64": CallRewrite((0, 8, 0), "0.9.0", ("new_val",), _plan_x64(None))
       for m in ("", ".x64_context")},
    **{f"jax.experimental{m}.disable_x64": CallRewrite((0, 8, 0), "0.9.0", (), _plan_x64(False))
       for m in ("", ".x64_context")},
}


#: Last parts of the rewritten helpers' names; an imported helper may be renamed
#: (``from ... import moveaxis as mv``), so its local names are added per file.
CALL_NAMES = frozenset(name.rsplit(".", 1)[1] for name in CALLS)


class _Uses(cst.CSTVisitor):
    """Every read of a module-level name: whether it is called, and whether in an annotation."""

    def __init__(self, local: str) -> None:
        self.local = local
        self.calls: list[cst.Call] = []
        self.names: list[tuple[cst.Name, bool]] = []
        self.annotation = 0

    def visit_Import(self, node) -> bool:
        return False

    def visit_ImportFrom(self, node) -> bool:
        return False

    def visit_Annotation(self, node) -> None:
        self.annotation += 1

    def leave_Annotation(self, node) -> None:
        self.annotation -= 1

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        walk.read(node.value, self)
        return False

    def visit_Call(self, node: cst.Call) -> None:
        if isinstance(node.func, cst.Name) and node.func.value == self.local:
            self.calls.append(node)

    def visit_Name(self, node: cst.Name) -> None:
        if node.value == self.local:
            self.names.append((node, self.annotation > 0))


#: Names the custom-call rules migrate together with the fallbacks that import them.
_BUILDER_NAMES = frozenset({"custom_call", "hlo_custom_call", "mhlo_custom_call", "ffi", "jex"})


def _bound_in(node: cst.CSTNode) -> set:
    """Names an import fallback binds: imported names and plain assignment targets."""
    bound: set = set()

    class _Binds(cst.CSTVisitor):
        def visit_ImportAlias(self, alias: cst.ImportAlias) -> None:
            name = alias.asname.name if alias.asname is not None else alias.name
            text = get_full_name_for_node(name) or ""
            bound.add(text.split(".", 1)[0])

        def visit_AssignTarget(self, target: cst.AssignTarget) -> None:
            if isinstance(target.target, cst.Name):
                bound.add(target.target.value)

    walk.read(node, _Binds())
    return bound


# -- the rule ---------------------------------------------------------------------------

class RemovedJaxApi(Rule):
    __doc__ = __doc__
    name = "removed-jax-api"
    summary = "Move renamed jax names and rewrite removed jax helpers with exact equivalents; report jax names the target lacks."
    triggers = (b"jax",)
    statement_scoped = True

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self.check_all = installed_version() is not None and tuple(ctx.options.target_jax) == installed_version()[: len(ctx.options.target_jax)]
        self.annotation = 0
        self.import_depth = 0
        #: Parameters, functions and locals whose annotation a finding already drops.
        self._dropped_annotations: set[int] = set()
        #: Module-level union aliases -> whether every read of them is a type (one module scan each).
        self._type_only_aliases: dict[str, bool] = {}
        self.call_names = CALL_NAMES | {b.local for b in ctx.names.imports if b.qualified in CALLS}
        #: Callees whose call was handled (visit_Call runs before visit_Attribute on its func).
        self.handled: set[int] = set()
        self._transforms: Optional[list] = None
        #: Attributes the module sets on jax's modules (``jax.nn.gelu_p = ...``): their code.
        self._own_attributes: Optional[dict[str, str]] = None
        #: (module, name) that an import move brings in under another local name. LibCST's
        #: import adder cannot also add the same name unaliased, so other sites spell it dotted.
        self.aliased: set[tuple[str, str]] = set()

    # -- tables ------------------------------------------------------------------
    def move_for(self, legacy: str) -> Optional[tuple[str, Move]]:
        """(new qualified name, entry) when ``legacy`` moved for the target."""
        entry = MOVED.get(legacy)
        new = entry.new if entry else None
        if entry is None:
            for module, candidate in MOVED.items():
                if candidate.module and legacy.startswith(module + "."):
                    entry, new = candidate, candidate.new + legacy[len(module):]
                    if "." in legacy[len(module) + 1:] and new not in MOVED:
                        # ``jax.pxla.thread_resources.env.physical_mesh``: only the module's
                        # member moves (``pxla.thread_resources``); what is read from it
                        # stays an attribute, read where it was.
                        return None
                    if new not in MOVED and first_missing(new) is not None:
                        # ``jax.pxla.ShardedDeviceArray``: the module moved, but this member
                        # is gone from its new home too; importing it from there would fail
                        # when the module is imported, not where the name is read.
                        return None
                    break
        if entry is not None and entry.module and new in MOVED and not MOVED[new].module:
            # ``jax.batching.Array``: the module moved, and the member has moved on since.
            entry, new = MOVED[new], MOVED[new].new
        target = tuple(self.ctx.options.target_jax)
        if entry is None or target < entry.since or entry.until is not None and target >= entry.until:
            return None
        seen = {legacy}
        while new not in seen:
            # ``jax.abstract_arrays.abstract_token`` -> ``jax.core.abstract_token``, which on a
            # target from 0.11.0 on has moved on to ``jax.ffi``: the name the target has.
            seen.add(new)
            further = MOVED.get(new)
            if further is None or further.module or further.unsafe or further.annotation_only \
                    or target < further.since or further.until is not None and target >= further.until:
                break
            new = further.new
        if self.check_all and first_missing(new) is not None:
            return None  # the installed jax (the target) lacks the new home too: reported as missing
        return new, entry

    @staticmethod
    def through_moved_module(legacy: str) -> str:
        """``legacy`` spelt through the new home of a module that moved whole
        (``jax.batching.not_mapped`` is ``jax.interpreters.batching.not_mapped``)."""
        for module, candidate in MOVED.items():
            if candidate.module and legacy.startswith(module + "."):
                return candidate.new + legacy[len(module):]
        return legacy

    def _gone_since(self, legacy: str, entry: Move) -> str:
        """How ``legacy`` left jax: removed, never there, or (still on the installed target)
        deprecated, with the release that removes it (``jax.core.new_jaxpr_eqn`` on 0.10.2)."""
        if not entry.removed:
            return "never existed"
        if self.check_all and first_missing(legacy) is None:
            return f"is deprecated (removed in jax {entry.removed})"
        return f"was removed in jax {entry.removed}"

    def moved(self, legacy: str) -> Optional[str]:
        found = self.move_for(legacy)
        return found[0] if found else None

    def call_rewrite(self, qualified: str) -> Optional[CallRewrite]:
        entry = CALLS.get(qualified) or CALLS.get(self.through_moved_module(qualified))
        if entry is None or tuple(self.ctx.options.target_jax) < entry.since:
            return None
        return entry

    def missing(self, qualified: str) -> Optional[str]:
        if not self.check_all or _owned(qualified):
            return None
        if qualified.startswith(_OLD_CONFIG):
            # ``from jax.config import config`` (moved by this rule): its members are
            # checked as ``jax.config``'s, and reported in the spelling the code has.
            gone = _config_member_gone(_config_canonical(qualified))
            return None if gone is None else _OLD_CONFIG + gone[len("jax.config."):]
        gone = first_missing(qualified)
        if gone is None:
            gone = _config_member_gone(qualified)
        if gone is None or _owned(gone):
            return None
        return gone

    def manual(self, node: cst.CSTNode, gone: str, why: str = "") -> None:
        setting = self._sets_itself(gone)
        if setting is not None:
            # ``jax.nn.gelu_p = Primitive("gelu")`` (jax2onnx's plugins): the module's own
            # attribute on jax's module, not a name jax removed.
            self.report(node, Safety.MANUAL, f"{gone} is not jax's: this module sets it on jax's module itself "
                        f"(`{setting}`), so it exists once that statement has run; a name of the module's own "
                        "would not depend on the import order")
            return
        canonical = _config_canonical(gone)
        hint = why or _guidance(canonical) or _plugin_hint(gone)
        self.report(node, Safety.MANUAL, f"{gone} does not exist in the installed jax {self._version()}" + (f" ({hint})" if hint else ""))

    def _sets_itself(self, qualified: str) -> Optional[str]:
        """The code of a module-level ``qualified = ...`` (an attribute the module puts on
        one of jax's modules), if there is one."""
        if self._own_attributes is None:
            self._own_attributes = {}
            for stmt in self.ctx.module.body:
                if not isinstance(stmt, cst.SimpleStatementLine):
                    continue
                for small in stmt.body:
                    targets = [t.target for t in small.targets] if isinstance(small, cst.Assign) else \
                        [small.target] if isinstance(small, cst.AnnAssign) else []
                    for target in targets:
                        name = self.ctx.qualified_name(target) if isinstance(target, cst.Attribute) else None
                        if name:
                            self._own_attributes.setdefault(name, short(self.ctx.module.code_for_node(small)))
        return self._own_attributes.get(qualified)

    def unsafe_as_manual(self, node: cst.CSTNode, qualified: str, message: str) -> None:
        """Without ``--unsafe-fixes`` the site stays: a manual finding, naming the fix on offer."""
        self.report(node, Safety.MANUAL, f"{qualified} does not exist in jax {self._version()}; "
                    f"{message} (applied with --unsafe-fixes)")

    def _all_uses_rewritable(self, local: str, module: str, plain_only: bool = False) -> bool:
        """Every use of ``local`` (bound to ``module``) reads a member this rule rewrites;
        ``plain_only``: one rewritten anywhere, not only in annotations."""
        movable = [legacy[len(module) + 1:] for legacy in MOVED
                   if legacy.startswith(module + ".") and self.moved(legacy) is not None
                   and not (plain_only and MOVED[legacy].annotation_only)]
        helpers = [legacy[len(module) + 1:] for legacy in CALLS
                   if legacy.startswith(module + ".") and self.call_rewrite(legacy) is not None]
        if not (movable or helpers) or not self._only_member_uses(local, movable + helpers):
            return False
        return all(self._member_calls_rewritable(local, member, CALLS[f"{module}.{member}"]) for member in helpers)

    def _member_calls_rewritable(self, local: str, member: str, entry: "CallRewrite") -> bool:
        """Every ``local.member`` is the callee of a call this rule rewrites, or a reference
        the helper's ``value`` replaces (``map(abstract_arrays.raise_to_shaped, avals)``)."""
        found: list[cst.Attribute] = []

        class _Members(cst.CSTVisitor):
            def visit_Attribute(self, node: cst.Attribute) -> None:
                if isinstance(node.value, cst.Name) and node.value.value == local and node.attr.value == member:
                    found.append(node)

        walk.read(self.ctx.module, _Members())
        for attribute in found:
            call = parent(self.ctx, attribute)
            if entry.value is not None and not is_called(self.ctx, attribute) and not compatibility_guard(self.ctx, attribute):
                continue  # ``map(abstract_arrays.raise_to_shaped, avals)``: its value replaces it
            if not is_called(self.ctx, attribute) or compatibility_guard(self.ctx, call):
                return False
            args = bind_arguments(call, entry.params)
            if args is None or not isinstance(entry.plan(self, call, args), tuple):
                return False
        return True

    def _only_registers_translations(self, local: str) -> bool:
        return self._only_member_uses(local, _TRANSLATION_MEMBERS)

    def _only_member_uses(self, local: str, members) -> bool:
        """``local`` is imported once, and every other mention of it is ``local.<member>``."""
        member = "(?:" + "|".join(map(re.escape, members)) + ")"
        # Comment lines are no uses, the annotations of an earlier --annotate run above all
        # (they name rules: ``[xla-translation-rule]``).
        text = _COMMENT_LINE.sub("", self.ctx.source.decode("utf-8", "replace"))
        uses = len(re.findall(rf"(?<![.\w]){re.escape(local)}\b", text))
        member_uses = len(re.findall(rf"(?<![.\w]){re.escape(local)}\s*\.\s*{member}\b", text))
        imports = len(re.findall(rf"\bimport\b[^\n]*(?<![.\w]){re.escape(local)}\b", text))
        return imports == 1 and uses - imports == member_uses

    def _uses(self, local: str) -> _Uses:
        uses = _Uses(local)
        walk.read(self.ctx.module, uses)
        return uses

    def _imported_call_rewritable(self, node: cst.ImportFrom, local: str, entry: CallRewrite) -> Optional[list]:
        """Every use of an imported helper is a call this rule rewrites, or a reference
        that the helper's ``value`` replaces: those references (None when some use is
        neither)."""
        reads = self._reads_of_import(node, local)
        if reads is None:
            if self.ctx.names._maybe_rebound(local):
                return None
            uses = self._uses(local)
            if entry.value is not None and any(annotated for _, annotated in uses.names):
                return None
            reads, calls = [name for name, _ in uses.names], uses.calls
            calls = [call for call in calls if any(call.func is name for name in reads)]
        else:
            # Locals of the same name (``enable_x64 = factory()`` in a function) are not
            # reads of the import: the scopes tell them apart.
            calls = [call for name in reads if isinstance(call := self.ctx.parents.get(name), cst.Call)
                     and call.func is name]
        callees = {id(call.func) for call in calls}
        uncalled = [name for name in reads if id(name) not in callees]
        if not reads or uncalled and (entry.value is None or not all(
                isinstance(n, cst.Name) and compatibility_guard(self.ctx, n) is None for n in uncalled)):
            return None
        for call in calls:
            args = bind_arguments(call, entry.params)
            plan = entry.plan(self, call, args) if args is not None else None
            # A call left for the user (manual, or unsafe without --unsafe-fixes) keeps the import.
            if not isinstance(plan, tuple) or plan[0] is Safety.UNSAFE and not self.ctx.options.unsafe_fixes:
                return None
        return uncalled

    def _helper_value(self, node: cst.BaseExpression, qualified: str, entry: CallRewrite) -> None:
        """A removed helper read as a value (``map(core.raise_to_shaped, avals)``) becomes
        the expression that does what each of its calls now does."""
        up = self.ctx.parents.get(node)
        bare = isinstance(up, cst.Arg) and up.value is node and not up.star or \
            isinstance(up, (cst.Assign, cst.Return)) and up.value is node

        def edit(_updated: cst.CSTNode) -> cst.CSTNode:
            value = cst.parse_expression(entry.value(self) if callable(entry.value) else entry.value)
            return value if bare else value.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])

        self.report(node, Safety.SAFE, f"{qualified} was removed in jax {entry.removed}; read as a value, not called, it "
                    f"becomes an expression doing what its rewritten calls do ({entry.value_why})", edit,
                    kernel_receives="unchanged (not a custom call)")

    def _unused(self, local: str) -> bool:
        """Nothing reads ``local`` (not even as a string, as in ``__all__``)."""
        return not self.ctx.named_in_string(local) and not self._uses(local).names

    # -- import fallbacks that fail on every branch --------------------------------------
    def visit_Try(self, node: cst.Try) -> None:
        """A module-level import fallback whose every branch fails on the target jax
        (jax-chacha-prng: ``from jaxlib.xla_client import XlaOp``, else ``jax.xla.XlaOp``,
        else ``raise ImportError``) stops the module from importing. When nothing else in the
        module reads the names it binds, it goes whole (safe); otherwise it is reported."""
        if not self.check_all or not isinstance(self.ctx.parents.get(node), cst.Module):
            return
        failures = self._fallback_fails(node)
        if not failures:
            return
        bound = _bound_in(node)
        if not bound or any(name in _BUILDER_NAMES for name in bound):
            return  # the custom-call builders' fallbacks go with their migrated calls
        read = [name for name in sorted(bound) if self._read_outside(name, node)]
        why = "; ".join(dict.fromkeys(failures))
        if read:
            self.report(node, Safety.MANUAL,
                        f"every branch of this import fallback fails on jax {self._version()} ({why}), so the module "
                        f"fails at import: replace the uses of {', '.join(f'`{n}`' for n in read)}, then drop the fallback")
            return
        self.report(node, Safety.SAFE,
                    f"every branch of this import fallback fails on jax {self._version()} ({why}) and nothing reads "
                    f"{', '.join(f'`{n}`' for n in sorted(bound))}: the fallback, which stopped the module importing, is removed",
                    lambda _updated: cst.RemoveFromParent())

    def _fallback_fails(self, node: cst.Try) -> list[str]:
        """Why each branch of an import fallback fails on the target; empty when one may not."""
        if node.orelse is not None or node.finalbody is not None or not node.handlers:
            return []
        if not all((caught := caught_exceptions(h)) and all(c.rsplit(".", 1)[-1] in GUARD_EXCEPTIONS for c in caught)
                   for h in node.handlers):
            return []
        reasons = []
        for block in (node.body, *(h.body for h in node.handlers)):
            reason = self._block_fails(block)
            if reason is None:
                return []
            reasons.extend(reason)
        return reasons

    def _block_fails(self, block: cst.BaseSuite) -> Optional[list[str]]:
        """Why running ``block`` raises on the target (an import of a name jax lacks, a
        read of one, an explicit raise), or None when it may complete."""
        if not isinstance(block, cst.IndentedBlock):
            return None
        for statement in block.body:
            if isinstance(statement, cst.Try):
                inner = self._fallback_fails(statement)
                if inner:
                    return inner
                return None
            if not isinstance(statement, cst.SimpleStatementLine):
                return None
            for small in statement.body:
                if isinstance(small, cst.Raise):
                    return ["then it raises"]
                if isinstance(small, cst.ImportFrom) and not small.relative and not isinstance(small.names, cst.ImportStar):
                    module = get_full_name_for_node(small.module) or ""
                    for alias in small.names:
                        gone = self.missing(f"{module}.{get_full_name_for_node(alias.name)}")
                        if gone:
                            return [f"{gone} is missing"]
                elif isinstance(small, cst.Import):
                    for alias in small.names:
                        gone = self.missing(get_full_name_for_node(alias.name) or "")
                        if gone:
                            return [f"{gone} is missing"]
                elif isinstance(small, cst.Assign) and isinstance(small.value, (cst.Attribute, cst.Name)):
                    qualified = self.ctx.qualified_name(small.value)
                    gone = self.missing(qualified) if qualified and qualified.split(".", 1)[0] in ("jax", "jaxlib") else None
                    if gone:
                        return [f"{gone} is missing"]
                elif not (isinstance(small, cst.Pass) or isinstance(small, cst.Expr)
                          and isinstance(small.value, (cst.SimpleString, cst.ConcatenatedString, cst.Ellipsis))):
                    return None  # a call (jax.config.update) would be lost with the fallback
        return None

    def _read_outside(self, name: str, node: cst.CSTNode) -> bool:
        """Whether the module reads ``name`` outside ``node`` (or names it in a string)."""
        if self.ctx.named_in_string(name):
            return True
        inside = set()

        class _Inside(cst.CSTVisitor):
            def visit_Name(self, n: cst.Name) -> None:
                inside.add(id(n))

        walk.read(node, _Inside())
        uses = self._uses(name)
        return any(id(n) not in inside for n, _ in uses.names)

    def _reads_of_import(self, node: cst.ImportFrom, local: str) -> Optional[list[cst.CSTNode]]:
        """The reads that reach the name an import at module level or at the top of a
        function body binds, when that import is its scope's only binding of it and no
        string names it (``__all__``); else None."""
        if self.ctx.named_in_string(local):
            return None
        scope = self.ctx.scopes.get(node)
        holder = self.ctx.parents.get(self.ctx.parents.get(node))
        in_function = isinstance(holder, cst.IndentedBlock) and isinstance(self.ctx.parents.get(holder), cst.FunctionDef)
        if scope is None or not (isinstance(holder, cst.Module) or in_function):
            return None
        bindings = list(scope.assignments[local])
        if len(bindings) != 1 or bindings[0].node is not node:
            return None
        return [access.node for access in bindings[0].references]

    def _shadowed_import(self, node: cst.ImportFrom, local: str) -> Optional[str]:
        """The statement that binds ``local`` again, when an import's binding is replaced
        before anything can read it (mpi4jax 2020: ``from jax.lax.lax import
        create_token_p``, then ``create_token_p = Primitive("create_token_mpi4jax")``): only
        imports and undecorated function definitions that do not spell it outside their
        bodies come between, and the statement binding it again is a plain assignment whose
        value does not spell it, or a ``def``/``class``. Functions defined in between read
        the name when called, after the module has run. The same holds for an import at
        the top level of a function body and the statements after it in that body
        (``from jaxlib.xla_client import ops`` then ``ops = factory()``)."""
        line = self.ctx.parents.get(node)
        holder = self.ctx.parents.get(line)
        if isinstance(holder, cst.IndentedBlock) and isinstance(self.ctx.parents.get(holder), cst.FunctionDef):
            body = list(holder.body)
        else:
            body = list(self.ctx.module.body)
        if not isinstance(line, cst.SimpleStatementLine) or line not in body or b"global" in self.ctx.source:
            return None
        word = re.compile(r"(?<![\w.])" + re.escape(local) + r"(?!\w)")
        code = self.ctx.module.code_for_node
        for stmt in body[body.index(line) + 1:]:
            if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)) and stmt.name.value == local and not stmt.decorators:
                if isinstance(stmt, cst.FunctionDef) or not word.search(code(stmt)):
                    return f"`{'def' if isinstance(stmt, cst.FunctionDef) else 'class'} {local}`"
                return None
            if isinstance(stmt, cst.FunctionDef):
                header = stmt.with_changes(body=cst.IndentedBlock(body=[]), leading_lines=[])
                if stmt.decorators or word.search(code(header)):
                    return None
                continue
            if not isinstance(stmt, cst.SimpleStatementLine):
                return None
            for small in stmt.body:
                if isinstance(small, cst.Expr) and isinstance(small.value, (cst.SimpleString, cst.ConcatenatedString)):
                    continue  # a docstring
                if isinstance(small, (cst.Import, cst.ImportFrom)):
                    if word.search(code(small)):
                        return None  # bound by another import: not this one's to judge
                    continue
                if isinstance(small, cst.Assign) and any(isinstance(t.target, cst.Name) and t.target.value == local
                                                         for t in small.targets) and not word.search(code(small.value)):
                    return f"`{local} = {one_line(code(small.value))[:40]}`"
                if isinstance(small, cst.Expr) and isinstance(small.value, cst.NamedExpr) \
                        and isinstance(small.value.target, cst.Name) and small.value.target.value == local \
                        and not word.search(code(small.value.value)):
                    return f"`{local} := {one_line(code(small.value.value))[:40]}`"
                return None
        return None

    def _unread_import(self, node: cst.ImportFrom, local: str) -> bool:
        """No read reaches the name this import binds, though the name is read elsewhere:
        only locals of the same name (``ops = factory()`` in a function) are."""
        return self._reads_of_import(node, local) == []

    def _dotted_unused(self, node: cst.Import, full: str) -> bool:
        """``import jax.abstract_arrays`` at module level that nothing spells again outside
        comment lines, but for reads this rule moves in the same run, while another import
        that surely stays binds ``jax`` too: dropping it loses no name."""
        root = full.split(".", 1)[0]
        # Comment lines are no uses (the annotation of an earlier --annotate run names it).
        text = _COMMENT_LINE.sub("", self.ctx.source.decode("utf-8", "replace"))
        mentions = len(re.findall(r"(?<![\w.])" + re.escape(full) + r"(?!\w)", text))
        # ``jax.abstract_arrays.ShapedArray`` (jaxsim): reads this rule moves elsewhere in
        # the same run no longer need the import.
        moved = []

        class _Reads(cst.CSTVisitor):
            def visit_Attribute(self, attribute: cst.Attribute) -> None:
                if get_full_name_for_node(attribute.value) == full:
                    moved.append(attribute)

        walk.read(self.ctx.module, _Reads())
        if moved and b"ccmigrate: ignore" in self.ctx.source:
            return False  # a read whose fix is switched off keeps the import
        for attribute in moved:
            if full == "jax.xla" and attribute.attr.value in _TRANSLATION_MEMBERS:
                continue  # xla-translation-rule converts or reports each registration
            found = self.move_for(self.ctx.qualified_name(attribute) or "")
            if found is None or found[1].unsafe or found[1].annotation_only or compatibility_guard(self.ctx, attribute):
                return False
        if mentions != 1 + len(moved):
            return False
        top = next((b.top_level for b in self.ctx.names.imports if b.statement is node), False)
        return top and any(self._binds_root_for_sure(b.statement, root) for b in self.ctx.names.imports
                           if b.top_level and b.local == root and b.statement is not node)

    def _binds_root_for_sure(self, statement: cst.CSTNode, root: str) -> bool:
        """``statement`` is a module-level ``import root...`` outside every branch (not
        under ``if TYPE_CHECKING``, not in a try) whose module exists on the target, so it
        stays whatever this run removes."""
        line = self.ctx.parents.get(statement)
        if not isinstance(statement, cst.Import) or not isinstance(self.ctx.parents.get(line), cst.Module):
            return False
        return any((full := get_full_name_for_node(a.name) or "").split(".", 1)[0] == root and a.asname is None
                   and first_missing(full) is None for a in statement.names)

    def _version(self) -> str:
        return ".".join(map(str, installed_version() or ()))

    def _imported_type_uses_move(self, local: str, qualified: str, entry: Move) -> bool:
        """Every use of the imported type name is one its move is safe for: in an
        annotation, or (``entry.beside_tracer``) beside ``jax.core.Tracer`` in a tuple.
        Where the quick scan sees a possible second binding (a tuple display reads like a
        parameter list), each use must resolve to the import alone."""
        uses = self._uses(local)
        if self.ctx.names._maybe_rebound(local) and any(
                self.ctx.qualified_names(name) != {qualified} for name, _ in uses.names):
            return False
        return bool(uses.names) and all(in_annotation or self._in_type_alias(name)
                                        or (entry.beside_tracer and self._beside_tracer(name))
                                        or (entry.type_test and self._isinstance_test(name) is not None)
                                        for name, in_annotation in uses.names)

    def _in_type_alias(self, node: cst.CSTNode) -> bool:
        """``node`` is inside a module-level type alias ``JaxArray = Union[DeviceArray,
        ShardedDeviceArray]`` (scico's, read in annotations across the package): a
        ``typing.Union``/``Optional`` subscript is a type expression, which ``isinstance``
        refused before Python 3.10 ("Subscripted generics cannot be used with class and
        instance checks"). Every other read of the alias in the module must be one too (an
        annotation, another union): one passed on as a value may reach an instance check."""
        child, parent = node, self.ctx.parents.get(node)
        outermost: Optional[cst.Subscript] = None
        while isinstance(parent, (cst.Subscript, cst.SubscriptElement, cst.Index)):
            if isinstance(parent, cst.Subscript):
                if child is parent.value:
                    return False
                outermost = parent
            child, parent = parent, self.ctx.parents.get(parent)
        if outermost is None or not isinstance(parent, cst.Assign) or parent.value is not outermost \
                or self.ctx.qualified_name(outermost.value) not in _TYPING_UNIONS:
            return False
        line = self.ctx.parents.get(parent)
        if not isinstance(self.ctx.parents.get(line), cst.Module) or len(parent.targets) != 1 \
                or not isinstance(parent.targets[0].target, cst.Name):
            return False
        target = parent.targets[0].target
        if target.value not in self._type_only_aliases:
            self._type_only_aliases[target.value] = all(
                name is target or self._in_type_expression(name)
                for name in cstm.findall(self.ctx.module, cstm.Name(target.value)))
        return self._type_only_aliases[target.value]

    def _in_type_expression(self, node: cst.CSTNode) -> bool:
        """``node`` is read in an annotation or inside a ``typing.Union``/``Optional``."""
        parent = self.ctx.parents.get(node)
        while parent is not None:
            if isinstance(parent, cst.Annotation) or isinstance(parent, cst.Subscript) \
                    and self.ctx.qualified_name(parent.value) in _TYPING_UNIONS:
                return True
            if isinstance(parent, (cst.BaseStatement, cst.Call, cst.Lambda)):
                return False
            parent = self.ctx.parents.get(parent)
        return False

    def _beside_tracer(self, node: cst.CSTNode) -> bool:
        """``node`` is an element of a tuple display that also holds ``jax.core.Tracer``
        (``isinstance(x, (DeviceArray, core.Tracer))``, funsor's ``(onp.ndarray,
        DeviceArray, Tracer)``): as a union of types, jax.Array there matches what the pair
        matched in every release. ``DeviceArray`` was jax.Array itself from 0.4.1; before
        it, concrete arrays only, and tracers are the rest of what jax.Array matches."""
        element = self.ctx.parents.get(node)
        display = self.ctx.parents.get(element)
        if not isinstance(element, cst.Element) or not isinstance(display, cst.Tuple):
            return False
        return any(other is not element and isinstance(other, cst.Element)
                   and self.ctx.qualified_name(other.value) in _TRACER_NAMES for other in display.elements)

    # -- annotations ---------------------------------------------------------------
    def visit_Annotation(self, node: cst.Annotation) -> None:
        self.annotation += 1

    def leave_Annotation(self, original_node: cst.Annotation) -> None:
        self.annotation -= 1

    # -- imports -------------------------------------------------------------------
    # A batched visit walks into import statements whatever visit_* returns: the dotted
    # module names there are not uses.
    def leave_Import(self, original_node: cst.Import) -> None:
        self.import_depth -= 1

    def leave_ImportFrom(self, original_node: cst.ImportFrom) -> None:
        self.import_depth -= 1

    def visit_Import(self, node: cst.Import) -> Optional[bool]:
        self.import_depth += 1
        moves: list[tuple[str, str]] = []
        unused: list[str] = []
        not_modules: list[str] = []
        for alias in node.names:
            full = get_full_name_for_node(alias.name) or ""
            new = self.moved(full)
            if new is not None and full in MOVED and MOVED[full].module:
                moves.append((full, new))
                continue
            if full in NOT_MODULES and alias.asname is None and self.check_all:
                not_modules.append(full)
                continue
            gone = self.missing(full)
            if gone and alias.asname is not None and self._unused(get_full_name_for_node(alias.asname.name) or ""):
                unused.append(full)
                continue
            if gone and alias.asname is None and "." in full and self._dotted_unused(node, full):
                unused.append(full)
                continue
            if gone and not compatibility_guard(self.ctx, node):
                self.manual(node, gone)
        if unused and not compatibility_guard(self.ctx, node):
            def drop(updated: cst.CSTNode):
                if not isinstance(updated, cst.Import):
                    return updated
                return import_without(updated, lambda a: (get_full_name_for_node(a.name) or "") in unused)

            self.report(node, Safety.SAFE, "; ".join(f"unused import of {full}, which does not exist in jax "
                                                     f"{self._version()}, removed" for full in unused), drop)
        if not_modules and not compatibility_guard(self.ctx, node):
            plain = {NOT_MODULES[full] for full in not_modules}
            # Another ``import jax`` of the same statement or scope makes the rewritten one a duplicate.
            # (Only at module level: inside functions the scopes differ.)
            top = next((b.top_level for b in self.ctx.names.imports if b.statement is node), False)
            bound = {b.qualified for b in self.ctx.names.imports
                     if top and b.top_level and b.local == b.qualified and b.statement is not node}

            def edit(updated: cst.CSTNode) -> cst.CSTNode:
                if not isinstance(updated, cst.Import):
                    return updated
                names, seen = [], set(bound)
                for a in updated.names:
                    full = get_full_name_for_node(a.name) or ""
                    if full in not_modules:
                        full = NOT_MODULES[full]
                        a = a.with_changes(name=cst.parse_expression(full))
                    if full in seen and full in plain:
                        continue
                    seen.add(full)
                    names.append(a)
                if not names:
                    return cst.RemoveFromParent()
                names[-1] = names[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
                return updated.with_changes(names=names)

            self.report(node, Safety.SAFE, "; ".join(
                f"`import {full}` fails: {full} is no module any more (the config object), and `import "
                f"{NOT_MODULES[full]}` binds the same name, through which {full} is read" for full in not_modules),
                edit, kernel_receives="unchanged (the same objects)")
        if moves and not compatibility_guard(self.ctx, node):
            renames = dict(moves)

            def edit(updated: cst.CSTNode) -> cst.CSTNode:
                names = [a.with_changes(name=cst.parse_expression(renames[get_full_name_for_node(a.name)]))
                         if get_full_name_for_node(a.name) in renames else a for a in updated.names]
                return updated.with_changes(names=names)

            self.report(node, Safety.SAFE, "; ".join(f"{old} is now {new}" for old, new in moves), edit,
                        kernel_receives="unchanged (the same objects)")
        return False

    def visit_ImportFrom(self, node: cst.ImportFrom) -> Optional[bool]:
        self.import_depth += 1
        if node.relative:
            return False
        module = get_full_name_for_node(node.module) or ""
        if module.split(".")[0] not in ("jax", "jaxlib"):
            return False
        if isinstance(node.names, cst.ImportStar):
            # The rules that own a module (jaxlib.hlo_helpers, jax.extend.ffi...) migrate
            # the names imported from it: a star import names none, so it is reported here.
            gone = self.missing(module) or (
                first_missing(module) if self.check_all and _owned(module) and module not in OWNED_STARS_REPORTED else None)
            if gone and not compatibility_guard(self.ctx, node):
                self.manual(node, gone, "" if not _owned(module) else (
                    "a star import of it names nothing a rule could follow: import the replacements of the names "
                    "the module uses by name (jax.ffi for custom calls)"))
            return False
        moves: list[tuple[str, str, Optional[str]]] = []  # (name, new qualified, asname)
        drops: list[str] = []
        said: list[str] = []
        reports: list[tuple[str, str]] = []
        values: list[tuple[cst.Name, str, CallRewrite]] = []  # reads of a helper that are not calls
        for alias in node.names:
            name = get_full_name_for_node(alias.name) or ""
            asname = get_full_name_for_node(alias.asname.name) if alias.asname else None
            local = asname or name
            qualified = f"{module}.{name}"
            found = self.move_for(qualified)
            if found is not None and qualified == "jax.xla" and TRANSLATIONS.search(self.ctx.source) \
                    and self._only_registers_translations(local):
                # xla-translation-rule converts or reports each registration, and the import
                # goes with the last one (or is reported as kept for them). With other uses
                # it moves: that rule reads the registrations through either spelling in
                # the same run, and the other uses need the import.
                continue
            if found is not None and found[1].annotation_only and not self._imported_type_uses_move(local, qualified, found[1]):
                if self.check_all:
                    reports.append((qualified, f"{found[0]} in annotations; {found[1].annotation_only}"))
                continue
            if found is not None and found[1].unsafe:
                if self.check_all:
                    reports.append((qualified, f"import {found[0]} instead: {found[1].unsafe}"))
                continue
            if found is not None and not found[1].module and not self._unused(local) \
                    and self._all_uses_rewritable(local, found[0], plain_only=True):
                # ``from jax import xla`` read only as ``xla.Device``: each use names the
                # member's own new home (jax.Device), so the module import goes.
                drops.append(name)
                said.append(f"{qualified} was removed (its uses now name the same objects elsewhere)")
                continue
            if found is not None:
                if local != found[0].rpartition(".")[2]:
                    self.aliased.add(tuple(found[0].rsplit(".", 1)))
                moves.append((name, found[0], asname))
                said.append(f"{qualified} is now {found[0]}")
                continue
            if qualified in MOVED_MODULES and self._all_uses_rewritable(local, qualified):
                drops.append(name)
                said.append(f"{qualified} was removed (its uses now name the same objects elsewhere)")
                continue
            entry = self.call_rewrite(qualified)
            uncalled = self._imported_call_rewritable(node, local, entry) if entry is not None else None
            if uncalled is not None:
                drops.append(name)
                said.append(f"{qualified} was removed (its calls are rewritten)")
                values.extend((read, qualified, entry) for read in uncalled)
                continue
            gone = self.missing(qualified)
            # An owner rule's name: dropped here when unused, otherwise left to the owner.
            owners = not gone and self.check_all and _droppable(qualified) and first_missing(qualified)
            if (gone or owners) and (self._unused(local) or self._unread_import(node, local)):
                drops.append(name)
                said.append(f"unused import of {qualified}, which does not exist in jax {self._version()}, removed")
                continue
            if gone and qualified in NEVER_INSTANCES and (tests := self._isinstance_reads(node, local)):
                drops.append(name)
                said.append(f"{qualified} was removed (its isinstance tests are rewritten)")
                for test in tests:
                    self._never_instance(qualified, *test)
                continue
            if gone and qualified in NO_OP_CONTEXTS and self.check_all \
                    and (statements := self._no_op_context_reads(node, local)):
                drops.append(name)
                said.append(f"{qualified} was removed (the `with` statements entering it are rewritten)")
                for statement, item in statements:
                    self.handled.add(id(item.item.func))
                    self._no_op_context(qualified, statement, item)
                continue
            if (gone or owners) and (again := self._shadowed_import(node, local)) is not None:
                drops.append(name)
                top = isinstance(self.ctx.parents.get(self.ctx.parents.get(node)), cst.Module)
                where = "at module level" if top else "in its function"
                said.append(f"import of {qualified}, which does not exist in jax {self._version()}, removed: `{local}` is "
                            f"bound again {where} ({again}) before anything reads it")
                continue
            if gone and qualified in CUSTOM_TRANSFORMS | DEFJVP and self._only_custom_transforms_uses(local):
                continue  # the decorator and each defjvp are rewritten; the import goes with the last
            if gone and qualified == MASKING and tuple(self.ctx.options.target_jax) >= MASKING_REMOVED \
                    and self._only_masking_registrations(local):
                continue  # each registration goes (visit_Call, visit_Assign), the import with the last
            if gone:
                reports.append((gone, ""))
        if not (moves or drops or reports) or compatibility_guard(self.ctx, node):
            return False
        for gone, why in reports:
            self.manual(node, gone, why)
        for read, qualified, entry in values:
            self._helper_value(read, qualified, entry)
        if moves or drops:
            self.report(node, Safety.SAFE, "; ".join(said), self._import_edit(moves, drops, node),
                        kernel_receives="unchanged (the same objects)")
        return False

    def _code_follows(self, node: cst.ImportFrom) -> bool:
        """Module-level code runs between ``node`` and a later module-level import."""
        body = list(self.ctx.module.body)
        top = self.ctx.top_statement(node)
        line = next((i for i, stmt in enumerate(body) if stmt is top), None)
        later = [i for i in range(line + 1, len(body)) if import_line(body[i])] if line is not None else []
        return bool(later) and not all(import_line(body[i]) for i in range(line + 1, later[-1]))

    def _import_edit(self, moves, drops, node: cst.ImportFrom):
        def edit(updated: cst.CSTNode):
            if not isinstance(updated, cst.ImportFrom) or isinstance(updated.names, cst.ImportStar):
                return updated  # another rule's edit of the same statement removed it
            gone = {name for name, _, _ in moves} | set(drops)
            targets = {new.rpartition(".")[0] for _, new, _ in moves}
            if moves and len(targets) == 1 and not updated.relative and self._code_follows(node) and all(
                    (get_full_name_for_node(a.name) or "") in gone for a in updated.names):
                # Every name goes to one module: the statement is rewritten where it stands.
                # Removed and re-added, the import would land with the later jax imports,
                # below code that may already read the name (``config.update`` right after
                # ``from jax.config import config``).
                return self._moved_in_place(updated, moves, targets.pop())
            for name, new, asname in moves:
                new_module, _, new_name = new.rpartition(".")
                local = asname or name
                aliased = local != new_name or (new_module, new_name) in self.aliased
                self.ctx.add_import(new_module, new_name, local if aliased else None)
            return import_without(updated, lambda a: (get_full_name_for_node(a.name) or "") in gone)

        return edit

    def _moved_in_place(self, updated: cst.ImportFrom, moves, module: str) -> cst.ImportFrom:
        aliases = []
        for name, new, asname in moves:
            new_name = new.rpartition(".")[2]
            local = asname or name
            alias = cst.ImportAlias(name=cst.Name(new_name),
                                    asname=cst.AsName(name=cst.Name(local)) if local != new_name else None)
            aliases.append(alias.with_changes(comma=SPACED_COMMA))
        aliases[-1] = aliases[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
        multiline = updated.lpar is not None and len(aliases) > 1
        return updated.with_changes(module=cst.parse_expression(module), names=aliases,
                                    lpar=updated.lpar if multiline else None, rpar=updated.rpar if multiline else None)

    # -- calls ---------------------------------------------------------------------
    def visit_Call(self, node: cst.Call) -> Optional[bool]:
        func = node.func
        last = func.value if isinstance(func, cst.Name) else func.attr.value if isinstance(func, cst.Attribute) else None
        if last == "register_lowering":
            self._gone_platform(node)
        if last == "update":
            self._gone_option(node)
        if last in _NO_OP_NAMES:
            self._no_op_config_call(node)
        if isinstance(func, cst.Attribute) and last.startswith("def"):
            self._masking_registration(node)
        if any(a.keyword is not None and a.keyword.value in _DROPPED_KEYWORD_NAMES for a in node.args):
            self._dropped_keywords(node)
        if last not in self.call_names:
            return None  # cheap test first: most calls in a jax module are none of these
        qualified = self.ctx.qualified_name(func)
        if not qualified or qualified not in CALLS:
            return None
        entry = self.call_rewrite(qualified)
        if entry is None or compatibility_guard(self.ctx, node):
            return None
        self.handled.add(id(func))
        args = bind_arguments(node, entry.params)
        plan = entry.plan(self, node, args) if args is not None else "call it with plain arguments"
        if isinstance(plan, str):
            if self.check_all:
                self.manual(node, qualified, plan)
            return None
        safety, message, edit, *receives = plan
        if safety is Safety.UNSAFE and not self.ctx.options.unsafe_fixes:
            self.unsafe_as_manual(node, qualified, message)
            return None
        if isinstance(func, cst.Attribute):
            drop_binding_if_unused(self.ctx, (get_full_name_for_node(func) or "").split(".")[0])
        self.report(node, safety, message, edit,
                    kernel_receives=receives[0] if receives else "unchanged (not a custom call)")
        return None

    def visit_Assign(self, node: cst.Assign) -> None:
        """``ad.primitive_jvps[p] = partial(ad.standard_jvp, rules, p)`` -> ``ad.defjvp(p, *rules)``.

        jax's ``defjvp`` makes exactly that registration (and asserts a single-result
        primitive, for which alone ``standard_jvp`` worked); ``standard_jvp`` itself is no
        longer public (removed in 0.10.0)."""
        if len(node.targets) != 1 or not isinstance(node.targets[0].target, cst.Subscript):
            return
        target = node.targets[0].target
        value = node.value
        if self._unused_registry(node, target):
            return
        if not (isinstance(value, cst.Call) and len(value.args) in (2, 3) and not any(a.star or a.keyword for a in value.args)
                and len(target.slice) == 1 and isinstance(target.slice[0].slice, cst.Index)):
            return
        if self.ctx.qualified_name(target.value) != "jax.interpreters.ad.primitive_jvps" \
                or self.ctx.qualified_name(value.func) != "functools.partial":
            return
        # partial(ad.linear_jvp, p) or partial(ad.standard_jvp, rules, p), registered for p.
        jvp, primitive = value.args[0].value, value.args[-1].value
        wanted = "jax.interpreters.ad.linear_jvp" if len(value.args) == 2 else "jax.interpreters.ad.standard_jvp"
        code = self.ctx.module.code_for_node
        if self.ctx.qualified_name(jvp) != wanted or not self.missing(wanted) \
                or code(primitive) != code(target.slice[0].slice.value) or compatibility_guard(self.ctx, node):
            return
        self.handled.add(id(jvp))
        if len(value.args) == 2:
            self._linear_jvp(node, target, value, primitive)
            return
        rules = value.args[1].value
        drop_binding_if_unused(self.ctx, head_name(value.func) or "")
        registry = target.value

        def edit(_updated: cst.CSTNode) -> cst.CSTNode:
            defjvp = self._ad_function(registry, "defjvp")
            comma = SPACED_COMMA
            if isinstance(rules, (cst.Tuple, cst.List)) and not any(isinstance(e, cst.StarredElement) for e in rules.elements):
                rest = [cst.Arg(e.value) for e in rules.elements]
            else:
                rest = [cst.Arg(rules, star="*")]
            args = [cst.Arg(primitive), *rest]
            args = [a.with_changes(comma=comma) for a in args[:-1]] + [args[-1]]
            return cst.Expr(cst.Call(func=defjvp, args=args))

        self.report(node, Safety.SAFE, "ad.standard_jvp is gone from jax.interpreters.ad (jax 0.10.0); ad.defjvp(p, *rules) "
                    "registers the same partial(standard_jvp, rules, p) for a single-result primitive",
                    edit, kernel_receives="unchanged (not a custom call)")

    def _ad_function(self, registry: cst.BaseExpression, name: str) -> cst.BaseExpression:
        """``ad.<name>`` spelt as the registry (``ad.primitive_jvps``) was read, else imported."""
        if isinstance(registry, cst.Attribute):
            return registry.with_changes(attr=cst.Name(name))
        return cst.parse_expression(self.ctx.name_for(f"jax.interpreters.ad.{name}"))

    def _linear_jvp(self, node: cst.Assign, target: cst.Subscript, value: cst.Call, primitive: cst.BaseExpression) -> None:
        """``ad.primitive_jvps[p] = partial(ad.linear_jvp, p)`` beside ``ad.primitive_transposes[p]
        = T`` -> ``ad.deflinear2(p, T)``.

        ``deflinear2`` registers exactly that jvp and, as transpose, ``T`` behind
        ``linear_transpose2``, which calls ``T(ct, *args, **params)`` as jax called it before
        and only answers a symbolic-zero cotangent itself (zeros for the linear inputs,
        where ``T`` would have been handed an ``ad.Zero``). The call takes the place of the
        later of the two statements, where ``T`` is defined; the other goes. Without the
        transpose beside it the site is manual: no public function registers the jvp alone."""
        code = self.ctx.module.code_for_node
        line = self.ctx.parents.get(node)
        block = self.ctx.parents.get(line)
        partners = []
        if isinstance(line, cst.SimpleStatementLine) and len(line.body) == 1 and isinstance(block, (cst.Module, cst.IndentedBlock)):
            partners = [(stmt, rule) for stmt in block.body if stmt is not line
                        for rule in [self._transpose_of(stmt, code(primitive))] if rule is not None]
        if len(partners) != 1:
            self.report(node, Safety.MANUAL, "jax.interpreters.ad.linear_jvp does not exist in the installed jax "
                        f"{self._version()}: register the primitive with `ad.deflinear2({code(primitive)}, transpose_rule)`, "
                        "which installs this jvp together with its transpose rule")
            return
        [(partner, rule)] = partners
        statements = list(block.body)
        later, earlier = (line, partner) if statements.index(line) > statements.index(partner) else (partner, line)
        between = statements[statements.index(earlier) + 1:statements.index(later)]
        if not all(_only_defines(stmt) for stmt in between):
            self.report(node, Safety.MANUAL, "jax.interpreters.ad.linear_jvp does not exist in the installed jax "
                        f"{self._version()}: replace this registration and `ad.primitive_transposes[{code(primitive)}] = "
                        f"...` with `ad.deflinear2({code(primitive)}, transpose_rule)` (not rewritten: code between "
                        "the two registrations may differentiate the primitive)")
            return
        drop_binding_if_unused(self.ctx, head_name(value.func) or "")
        registry = target.value

        def combined(updated: cst.CSTNode) -> cst.CSTNode:
            call = cst.Call(func=self._ad_function(registry, "deflinear2"), args=[cst.Arg(primitive, comma=SPACED_COMMA),
                                             cst.Arg(rule)])
            return updated.with_changes(body=[cst.Expr(call)])

        message = ("ad.linear_jvp is no longer exported by jax.interpreters.ad; ad.deflinear2(p, T) registers the same "
                   "partial(linear_jvp, p) and calls the transpose rule T as before (answering a symbolic-zero "
                   "cotangent itself)")
        self.report(later, Safety.SAFE, message, combined, kernel_receives="unchanged (not a custom call)")
        self.report(earlier, Safety.SAFE, message + ": this registration joins that call",
                    lambda _updated: cst.RemoveFromParent(), kernel_receives="unchanged (not a custom call)")

    def _transpose_of(self, stmt: cst.CSTNode, primitive: str) -> Optional[cst.BaseExpression]:
        """The rule ``T`` of a statement ``ad.primitive_transposes[primitive] = T`` (also
        ``= partial(ad.linear_transpose2, T)``, which is what deflinear2 registers)."""
        if not (isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 and isinstance(stmt.body[0], cst.Assign)):
            return None
        assign = stmt.body[0]
        if len(assign.targets) != 1 or not isinstance(assign.targets[0].target, cst.Subscript):
            return None
        target = assign.targets[0].target
        if self.ctx.qualified_name(target.value) != "jax.interpreters.ad.primitive_transposes" or len(target.slice) != 1 \
                or not isinstance(target.slice[0].slice, cst.Index) \
                or self.ctx.module.code_for_node(target.slice[0].slice.value) != primitive:
            return None
        value = assign.value
        if isinstance(value, cst.Call) and self.ctx.qualified_name(value.func) == "functools.partial" and len(value.args) == 2 \
                and not any(a.star or a.keyword for a in value.args) \
                and self.ctx.qualified_name(value.args[0].value) == "jax.interpreters.ad.linear_transpose2":
            self.handled.add(id(value.args[0].value))
            return value.args[1].value
        return value

    def _unused_registry(self, node: cst.Assign, target: cst.Subscript) -> bool:
        """``core.raise_to_shaped_mappings[AbstractThing] = lambda aval, _: aval``: jax has
        not read the table since 0.4.36 (raise_to_shaped became a no-op) and removed it in
        0.6.0, where the line fails with AttributeError. ``masking.masking_rules[p] = rule``
        (and ``shape_rules``): jax.mask's interpreter went in 0.3.16, the import fails. The
        registration goes: on every target from then on it had no effect (a lone statement
        of a block becomes ``pass``)."""
        found = self._dead_registry_line(node)
        if found is None:
            return False
        line, why = found
        self.handled.add(id(target.value))
        head = head_name(target.value)
        if head:
            drop_binding_if_unused(self.ctx, head)
        self.report(line, Safety.SAFE, f"{why}: the registration had no effect and is removed",
                    self._line_removal(line), kernel_receives="unchanged (not a custom call)")
        return True

    def _dead_registry_line(self, node: cst.Assign) -> Optional[tuple[cst.SimpleStatementLine, str]]:
        """The line of a registration into a table jax no longer reads, standing alone on
        it, with why it goes; ``None`` when it stays."""
        target = node.targets[0].target if len(node.targets) == 1 else None
        if not isinstance(target, cst.Subscript):
            return None
        dead = DEAD_REGISTRIES.get(self.ctx.qualified_name(target.value) or "")
        if dead is None or tuple(self.ctx.options.target_jax) < dead[0] or compatibility_guard(self.ctx, node):
            return None
        line = self.ctx.parents.get(node)
        if not isinstance(line, cst.SimpleStatementLine) or len(line.body) != 1:
            return None
        return line, dead[1]

    def _masking_registration(self, node: cst.Call) -> None:
        """``masking.defnaryop(p)``, ``masking.defvectorized(p)``: they put ``p``'s rule in
        ``masking_rules``, read by jax.mask alone; jax deleted the module with jax.mask in
        0.3.16, so on any later target the line fails and the rule could not be used. A
        statement that is the call alone, with plain arguments, goes."""
        line = self._masking_call_line(node)
        if line is None:
            return
        qualified = self.ctx.qualified_name(node.func) or ""
        self.handled.add(id(node.func))
        drop_binding_if_unused(self.ctx, head_name(node.func) or "")
        self.report(line, Safety.SAFE, f"{_MASKING_WHY}: `{qualified.rsplit('.', 1)[1]}` registered a rule for it alone, "
                    "so the call is removed", self._line_removal(line), kernel_receives="unchanged (not a custom call)")

    # -- custom_transforms ----------------------------------------------------------
    def _custom_transforms_plans(self) -> list:
        """Every module-level ``@custom_transforms`` function that converts whole (computed
        once: the import, the decorator and each ``defjvp`` line all ask)."""
        if self._transforms is not None:
            return self._transforms
        self._transforms = []
        body = list(self.ctx.module.body)
        for fn in body:
            if not isinstance(fn, cst.FunctionDef):
                continue
            decorators = [d for d in fn.decorators if self.ctx.qualified_name(d.decorator) in CUSTOM_TRANSFORMS]
            if len(decorators) != 1 or compatibility_guard(self.ctx, fn):
                continue
            plan = self._custom_transforms_plan(fn, decorators[0], body)
            if plan is not None:
                self._transforms.append(plan)
        return self._transforms

    def _custom_transforms_plan(self, fn: cst.FunctionDef, decorator: cst.Decorator, body: list):
        name = fn.name.value
        lines, others = [], []

        class Uses(cst.CSTVisitor):
            def visit_Call(self, node: cst.Call) -> None:
                if any(isinstance(a.value, cst.Name) and a.value.value == name for a in node.args):
                    others.append(node)

        for stmt in body:
            call = stmt.body[0].value if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 \
                and isinstance(stmt.body[0], cst.Expr) and isinstance(stmt.body[0].value, cst.Call) else None
            if call is not None and self.ctx.qualified_name(call.func) in DEFJVP and call.args \
                    and isinstance(call.args[0].value, cst.Name) and call.args[0].value.value == name \
                    and not any(a.star or a.keyword for a in call.args):
                lines.append((stmt, call))
            elif stmt is not fn:
                walk.read(stmt, Uses())
        # Another jax helper handed the function (defvjp, defjvp_all..., or a defjvp that is
        # not a module-level statement) would need the custom_transforms object: nothing
        # converts then.
        if not lines or self.ctx.options.target_jax < (0, 2, 12) or any(
                (self.ctx.qualified_name(c.func) or "") in CUSTOM_TRANSFORMS_HELPERS | DEFJVP for c in others):
            return None
        params = fn.params
        one = len(params.params) == 1 and not (params.posonly_params or params.kwonly_params
                                               or isinstance(params.star_arg, (cst.Param, cst.ParamStar))
                                               or params.star_kwarg or params.params[0].default)
        return _CustomTransforms(fn, decorator, lines, one and all(len(call.args) == 2 for _, call in lines))

    def _custom_transforms_enabled(self, plan: _CustomTransforms) -> bool:
        return plan.safe or self.ctx.options.unsafe_fixes

    def _only_custom_transforms_uses(self, local: str) -> bool:
        """Every mention of ``local`` (an imported custom_transforms or defjvp) is a
        decorator or ``defjvp`` call that is rewritten."""
        sites = {id(p.decorator.decorator) for p in self._custom_transforms_plans() if self._custom_transforms_enabled(p)}
        sites |= {id(call.func) for p in self._custom_transforms_plans() if self._custom_transforms_enabled(p)
                  for _, call in p.lines}
        return self._every_use(local, lambda name: id(name) in sites)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        if not node.decorators or not isinstance(self.ctx.parents.get(node), cst.Module):
            return
        plan = next((p for p in self._custom_transforms_plans() if p.function is node), None)
        if plan is None:
            return
        name = node.name.value
        why = ("custom_transforms and defjvp were removed in jax 0.2.12 for jax.custom_jvp, whose defjvps takes the same "
               "per-argument rules, each called as rule(g, ans, *args)")
        if not plan.safe:
            caveat = ("; custom_jvp also calls a rule with the zero tangent of an argument that is not being "
                      "differentiated, which custom_transforms skipped: the same result for rules linear in g")
            if not self.ctx.options.unsafe_fixes:
                self.handled.add(id(plan.decorator.decorator))  # this finding says it all
                self.unsafe_as_manual(plan.decorator, "jax.custom_transforms",
                                      f"{why}{caveat}; `{name}` would become a jax.custom_jvp")
                return
            why += caveat
        safety = Safety.SAFE if plan.safe else Safety.UNSAFE
        decorator = plan.decorator
        self.handled.add(id(decorator.decorator))
        drop_binding_if_unused(self.ctx, head_name(decorator.decorator) or "")
        self.report(decorator, safety, f"{why}: `{name}` becomes a jax.custom_jvp",
                    lambda updated: updated.with_changes(
                        decorator=cst.parse_expression(member_spelling(self.ctx, "jax", "custom_jvp"))),
                    kernel_receives="unchanged (not a custom call)")
        for line, call in plan.lines:
            self.handled.add(id(call.func))
            drop_binding_if_unused(self.ctx, head_name(call.func) or "")

            def edit(updated: cst.SimpleStatementLine, call=call) -> cst.CSTNode:
                expr = updated.body[0]
                new = expr.value.with_changes(func=cst.Attribute(cst.Name(name), cst.Name("defjvps")),
                                              args=expr.value.args[1:])
                return updated.with_changes(body=[expr.with_changes(value=new)])

            self.report(line, safety, f"{why}: defjvp({name}, ...) becomes {name}.defjvps(...)", edit,
                        kernel_receives="unchanged (not a custom call)")

    def _masking_call_line(self, node: cst.Call) -> Optional[cst.SimpleStatementLine]:
        """The line holding a masking registration call alone, when it can go."""
        qualified = self.ctx.qualified_name(node.func) or ""
        if not qualified.startswith(MASKING + ".def") or tuple(self.ctx.options.target_jax) < MASKING_REMOVED:
            return None
        expr = self.ctx.parents.get(node)
        line = self.ctx.parents.get(expr)
        if not isinstance(expr, cst.Expr) or not isinstance(line, cst.SimpleStatementLine) or len(line.body) != 1 \
                or not all(_pure(a.value) and not a.star for a in node.args) or compatibility_guard(self.ctx, node):
            return None
        return line

    def _only_masking_registrations(self, local: str) -> bool:
        """Every mention of the module name ``local`` (but its import) is a masking
        registration that goes, so the import goes with the last of them."""
        def goes(name: cst.Name) -> bool:
            member = self.ctx.parents.get(name)
            site = self.ctx.parents.get(member)
            if isinstance(site, cst.Call) and site.func is member:
                return self._masking_call_line(site) is not None
            if isinstance(site, cst.Subscript) and site.value is member:
                assign = self.ctx.parents.get(self.ctx.parents.get(site))
                return isinstance(assign, cst.Assign) and self._dead_registry_line(assign) is not None
            return False

        return self._every_use(local, goes)

    def _every_use(self, local: str, goes: Callable[[cst.Name], bool]) -> bool:
        """``local`` is read somewhere outside imports (not as an attribute's name, nor in a
        string), and ``goes`` holds for every such ``Name``."""
        names = [name for name, _annotated in self._uses(local).names]
        return bool(names) and all(goes(n) for n in names) and not self.ctx.named_in_string(local)

    def _gone_platform(self, node: cst.Call) -> None:
        """``mlir.register_lowering(p, rule, platform="interpreter")``: jax no longer knows
        the platform and raises NotImplementedError at registration, so the module fails on
        import. No backend of that name exists to run the rule: the registration goes."""
        if not self.check_all:
            return  # checked against the installed jax only
        if self.ctx.qualified_name(node.func) not in ("jax.interpreters.mlir.register_lowering",
                                                      "jax._src.interpreters.mlir.register_lowering"):
            return
        bound = bind_arguments(node, ("prim", "rule", "platform", "inline", "cacheable"))
        platform = bound.get("platform") if bound else None
        if platform is None or not isinstance(platform.value, cst.SimpleString):
            return
        name = platform.value.evaluated_value
        if name not in GONE_PLATFORMS or compatibility_guard(self.ctx, node):
            return
        statement = self.ctx.parents.get(self.ctx.parents.get(node))
        expr = self.ctx.parents.get(node)
        why = f"jax no longer knows the platform {name!r} ({GONE_PLATFORMS[name]}): register_lowering raises " \
              "NotImplementedError for it, so the module fails on import"
        if isinstance(expr, cst.Expr) and isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1:
            self.report(statement, Safety.SAFE, f"{why}; no backend of that name can run the rule, so the "
                        "registration is dropped", lambda _updated: cst.RemoveFromParent(),
                        kernel_receives="unchanged (no kernel runs on that platform)")
        else:
            self.report(node, Safety.MANUAL, f"{why}: drop this registration")

    def _gone_option(self, node: cst.Call) -> None:
        """``jax.config.update("experimental_xmap_spmd_lowering", True)``: an option the
        installed jax no longer has raises AttributeError ("Unrecognized config option"), at
        import for a module-level call. One that only configured a removed feature is
        dropped; any other is reported with its name."""
        if not self.check_all or self.ctx.qualified_name(node.func) not in ("jax.config.update", "jax.config.config.update"):
            return
        bound = bind_arguments(node, ("name", "val"))
        given = bound.get("name").value if bound and bound.get("name") is not None else None
        if isinstance(given, cst.Name):
            given = self.ctx.value_bound_once(given)  # ``OPT = "..."; config.update(OPT, v)``
        if not isinstance(given, cst.SimpleString):
            return
        option = given.evaluated_value
        if not isinstance(option, str) or _config_option_exists(option) or compatibility_guard(self.ctx, node):
            return
        statement = self.ctx.parents.get(self.ctx.parents.get(node))
        expr = self.ctx.parents.get(node)
        why = f"the installed jax {self._version()} has no config option {option!r}: jax.config.update raises AttributeError"
        value = bound.get("val").value if bound and bound.get("val") is not None else None
        forced = FORCED_OPTIONS.get(option)
        reason = GONE_OPTIONS.get(option) or (
            forced[1] if forced and value is not None and self.ctx.module.code_for_node(value) == forced[0] else None)
        if reason and isinstance(expr, cst.Expr) and isinstance(statement, cst.SimpleStatementLine) \
                and len(statement.body) == 1:
            drop_binding_if_unused(self.ctx, head_name(node.func) or "")
            self.report(statement, Safety.SAFE, f"{why}; {reason}, so setting it is dropped",
                        self._line_removal(statement), kernel_receives="unchanged (not a custom call)")
        elif forced:
            self.report(node, Safety.MANUAL, f"{why}; {forced[1]}: drop the call (the option is always {forced[0]} "
                        "now), and the code that needs another value")
        else:
            self.report(node, Safety.MANUAL, f"{why}: drop the call, or set the option that replaced it")

    def _no_op_config_call(self, node: cst.Call) -> None:
        """``jax.config.enable_omnistaging()``: a method that did nothing long before jax
        removed it; on the target the statement only raises AttributeError (at import for a
        module-level call). A statement that is the call alone goes (``pass`` when alone in
        its block); a call inside a larger expression is left to the manual report."""
        canonical = _config_canonical(self.ctx.qualified_name(node.func) or "")
        why = NO_OP_CONFIG_CALLS.get(canonical)
        if why is None or not self.check_all or node.args or _config_member_gone(canonical) is None:
            return
        expr = self.ctx.parents.get(node)
        line = self.ctx.parents.get(expr)
        if not isinstance(expr, cst.Expr) or not isinstance(line, cst.SimpleStatementLine) or len(line.body) != 1:
            return
        if compatibility_guard(self.ctx, node):
            return
        self.handled.add(id(node.func))
        drop_binding_if_unused(self.ctx, head_name(node.func) or "")
        name = canonical.rsplit(".", 1)[1]
        self.report(line, Safety.SAFE, f"jax.config.{name} does not exist in the installed jax {self._version()}; it was "
                    f"{why}: the call is removed", self._line_removal(line), kernel_receives="unchanged (not a custom call)")

    def _line_removal(self, line: cst.SimpleStatementLine) -> Callable:
        """The edit removing a statement line: ``pass``, with the line's comments, when it
        is alone in its block (nothing after it would take them)."""
        block = self.ctx.parents.get(line)
        if isinstance(block, cst.IndentedBlock) and len(block.body) == 1:
            return lambda updated: updated.with_changes(body=[cst.Pass()])
        return lambda _updated: cst.RemoveFromParent()

    def _dropped_keywords(self, node: cst.Call) -> None:
        qualified = self.ctx.qualified_name(node.func)
        if not qualified:
            return
        moved = MOVED.get(qualified)
        table = DROPPED_KEYWORDS.get(moved.new if moved else qualified)
        if table is None or compatibility_guard(self.ctx, node):
            return
        found = [a for a in node.args if a.keyword is not None and a.keyword.value in table]
        if not found:
            return
        names = {a.keyword.value for a in found}
        removed, why = table[found[0].keyword.value]
        if self.ctx.options.target_jax < removed:
            return
        message = (f"{', '.join(sorted(names))}= of {qualified.rsplit('.', 1)[1]} was removed by jax {version_text(removed)} "
                   f"({why})")
        edit = lambda updated: _drop_keywords(updated, names)  # noqa: E731
        if all(_pure(a.value) for a in found):
            self.report(node, Safety.SAFE, message + ": dropped", edit, kernel_receives="unchanged (not a custom call)")
        elif self.ctx.options.unsafe_fixes:
            self.report(node, Safety.UNSAFE, message + ": dropped, and its value's expression is no longer evaluated", edit)
        else:
            self.report(node, Safety.MANUAL, message + "; its value's expression would no longer be evaluated, so "
                        "the keyword stays (dropped with --unsafe-fixes)")

    # -- dotted uses -------------------------------------------------------------
    def visit_Attribute(self, node: cst.Attribute) -> Optional[bool]:
        # A batched visit still walks the children of a node a rule is done with: the
        # parts of a chain already handled are skipped here.
        if self.import_depth:
            return False
        if id(node) in self.handled:
            self._handle_chain(node.value)
            return False
        qualified = self.ctx.qualified_name(node)
        if not qualified or qualified.split(".")[0] not in ("jax", "jaxlib"):
            return None
        head = (get_full_name_for_node(node) or "").split(".")[0]
        if self._member_of_moved_missing(node, qualified):
            return False
        if self._extension_through_package(node, qualified, head):
            return False
        canonical = self.through_moved_module(qualified)
        value = VALUES.get(canonical)
        if value is not None and (self.missing(canonical) == canonical or canonical in _INSTANCE_ATTRIBUTES) \
                and "." in (get_full_name_for_node(node) or ""):
            if compatibility_guard(self.ctx, node):
                self._undecided(node, self.missing(canonical), f"{value[1]}: `{value[0]}`")
                return False
            text, origin, removed = value
            self._handle_chain(node.value)
            drop_binding_if_unused(self.ctx, head)
            self.report(node, Safety.SAFE, f"{qualified} was removed in jax {removed}; {origin}: written as `{text}`",
                        lambda _updated: cst.parse_expression(text), kernel_receives="unchanged (not a custom call)")
            return False
        entry = self.call_rewrite(qualified)
        if entry is not None and entry.value is not None and "." in (get_full_name_for_node(node) or "") \
                and not is_called(self.ctx, node) and self.missing(canonical) and not self.annotation:
            if compatibility_guard(self.ctx, node):
                self._undecided(node, self.missing(canonical), "")
                return False
            self._handle_chain(node.value)
            drop_binding_if_unused(self.ctx, head)
            self._helper_value(node, qualified, entry)
            return False
        found = self.move_for(qualified)
        if found is not None and (not self._import_line_moves(head) or not found[1].module and (
                found[1] is not MOVED.get(qualified) or not self._moved_import_covers(head, qualified, found[0]))):
            # (A member that moved on from a module moved whole is rewritten even where its
            # import line moves: ``batching.Array`` of ``from jax import batching``; so is one
            # that went elsewhere than its module: ``prng.threefry_2x32`` of ``from jax._src
            # import prng``.)
            if compatibility_guard(self.ctx, node):
                self._undecided(node, self.missing(qualified), f"the same object is {found[0]}")
                return False
            new, entry = found
            alias = bool(entry.annotation_only) and not self.annotation and self._in_type_alias(node)
            type_test = entry.type_test and not self.annotation and self._isinstance_test(node) is not None
            if entry.annotation_only and not self.annotation and not alias and not type_test \
                    and not (entry.beside_tracer and self._beside_tracer(node)):
                if self.check_all:
                    self.manual(node, qualified, f"{new} in annotations; {entry.annotation_only}")
                self._handle_chain(node.value)  # ``jax.pxla.ShardedDeviceArray(x)``: left whole
                return False
            new_module, _, new_name = new.rpartition(".")

            def edit(_updated: cst.CSTNode) -> cst.CSTNode:
                if (new_module, new_name) in self.aliased:
                    for binding in self.ctx.names.imports:
                        if binding.qualified == new_module and binding.from_module is not None and binding.top_level \
                                and not self.ctx.names._maybe_rebound(binding.local):
                            return cst.parse_expression(f"{binding.local}.{new_name}")  # ``state.AbstractRef``
                    self.ctx.add_import(new_module)
                    return cst.parse_expression(new)
                return cst.parse_expression(self._through_moved_module(new_module, new_name)
                                            or member_spelling(self.ctx, new_module, new_name, moved_from=qualified))

            self._handle_chain(node.value)
            drop_binding_if_unused(self.ctx, head)
            if entry.unsafe:
                if self.ctx.options.unsafe_fixes:
                    self.report(node, Safety.UNSAFE, f"{qualified} -> {new}: {entry.unsafe}", edit)
                else:
                    self.unsafe_as_manual(node, qualified, f"{entry.unsafe}; it would become {new}")
                return False
            same = f"{new} ({entry.note})" if entry.note else f"the same object is {new}"
            if alias:
                same = (f"{new}, which subsumes it, in this type alias (a typing.Union, which isinstance refused "
                        "before Python 3.10, so the alias only ever served annotations)")
            elif type_test:
                same = f"{new} ({entry.note}) in this isinstance test"
            elif entry.annotation_only and not self.annotation:
                same = f"beside jax.core.Tracer in this tuple of types, {new} matches what the pair matched"
            gone_since = self._gone_since(qualified, entry)
            self.report(node, Safety.SAFE, f"{qualified} {gone_since}; {same}", edit,
                        kernel_receives="unchanged (the same objects)")
            return False
        gone = self.missing(qualified)
        if gone != qualified:
            return None  # the missing part is further in (reported there) or nothing is missing
        binding = self.ctx.names.binding_and_prefix(qualified)
        if binding is not None and self.missing(binding[1]) and binding[0].split(".")[0] == head \
                and binding[1] != _OLD_CONFIG[:-1]:  # that import is moved, not reported
            return None  # the import itself is reported (``jax.xla_computation`` beside
            # ``from jax import xla_computation`` reads through ``jax``: reported here)
        guard = compatibility_guard(self.ctx, node)
        if not guard:
            # A name jaxlib binds only with a GPU plugin is there where the code runs: its
            # annotation stays (reported below, with the plugin it waits for).
            owner = self._signature_annotation(node) if self.annotation and not self.call_rewrite(qualified) \
                and not awaited_plugins(gone) else None
            if owner is not None:
                drop_binding_if_unused(self.ctx, head)
                if id(owner) in self._dropped_annotations:
                    return False  # ``Tuple[xla.XlaOp, xla.TranslationContext]``: one drop says it
                self._dropped_annotations.add(id(owner))
                if isinstance(owner, cst.AnnAssign):
                    why = "a local's annotation is never evaluated: it only names what is gone"
                elif self._postponed():
                    why = ("under `from __future__ import annotations` it is not evaluated, but type checkers and "
                           "typing.get_type_hints resolve it and fail; it has no other effect")
                else:
                    why = "evaluated, it fails when the function is defined; it has no other effect"
                self.report(owner, Safety.SAFE, f"{gone} does not exist in the installed jax {self._version()}: "
                            f"the {_ANNOTATED[type(owner)]} annotation naming it is dropped ({why})",
                            _without_annotation, kernel_receives="unchanged (not a custom call)")
            elif qualified in NEVER_INSTANCES and (test := self._isinstance_test(node)) is not None:
                self._never_instance(qualified, *test)
            elif qualified in XLA_OP_TYPES and self._typevar_constraint(node):
                self._xla_op_constraint(node, head, gone)
            else:
                up = parent(self.ctx, node)
                member = f"{qualified}.{up.attr.value}" if isinstance(up, cst.Attribute) and up.value is node else ""
                if member in NEVER_INSTANCES and (test := self._isinstance_test(up)) is not None:
                    self._never_instance(member, *test)  # ``jax.abstract_arrays.ConcreteArray``: the module went too
                    return False
                self.manual(node, gone, "only its calls are rewritten" if self.call_rewrite(qualified)
                            else GUIDANCE.get(member, ""))
        elif not self._undecided(node, gone, GUIDANCE.get(qualified, "")) \
                and compatibility_guard(self.ctx, node, early_exits=False) is None:
            # Only an early exit above it (``if <version test>: return ...``) keeps it:
            # nothing encloses it, so a count reading statement by statement sees it.
            self.report(node, Safety.MANUAL, f"{gone} does not exist in the installed jax {self._version()}; left as "
                        f"is, as code for other jax releases: the {guard} leaves it to them. Delete it with that "
                        "test once they are no longer supported")
        return False

    def _undecided(self, node: cst.CSTNode, gone: Optional[str], advice: str) -> bool:
        """Report a missing name left inside a guard whose outcome on the target is not read
        (``if hasattr(jax, "ffi"):``): that branch may well run there. True when reported."""
        undecided = undecided_guard(self.ctx, node) if gone else None
        if undecided is None:
            return False
        self.report(node, Safety.MANUAL, f"{gone} does not exist in the installed jax {self._version()}; left as "
                    f"is inside {undecided}, whose outcome there is not read: where that branch runs, it fails"
                    f"{f' ({advice})' if advice else ''}. Check the test; drop the branch with support for the "
                    "releases it serves")
        return True

    def _xla_op_constraint(self, node: cst.CSTNode, head: str, gone: str) -> None:
        drop_binding_if_unused(self.ctx, head)
        self.report(node, Safety.SAFE, f"{gone} does not exist in the installed jax {self._version()}: in "
                    "this TypeVar's constraints (they inform type checkers only) it becomes ir.Value, "
                    "what MLIR lowering rules receive where translation rules received XlaOps",
                    lambda _updated: cst.parse_expression(
                        member_spelling(self.ctx, "jax.interpreters.mlir", "ir") + ".Value"),
                    kernel_receives="unchanged (not a custom call)")

    def _typevar_constraint(self, node: cst.CSTNode) -> bool:
        """``node`` is a constraint or the ``bound=`` of a ``typing.TypeVar(name, ...)``
        (kfac-jax: ``TypeVar("ArrayOrXla", Array, xla.XlaOp)``)."""
        arg = self.ctx.parents.get(node)
        call = self.ctx.parents.get(arg)
        if not (isinstance(arg, cst.Arg) and arg.value is node and isinstance(call, cst.Call)):
            return False
        if self.ctx.qualified_name(call.func) not in ("typing.TypeVar", "typing_extensions.TypeVar"):
            return False
        if arg.keyword is not None:
            return arg.keyword.value == "bound"
        return arg.star == "" and call.args.index(arg) >= 1

    def _isinstance_reads(self, node: cst.ImportFrom, local: str) -> list:
        """The ``isinstance`` tests (see :meth:`_isinstance_test`) of every read of the
        imported ``local``; empty when it is read otherwise, or not at all."""
        reads = self._reads_of_import(node, local)
        if reads is None:
            if self.ctx.names._maybe_rebound(local):
                return []
            reads = [n for n, _ in self._uses(local).names]
        tests = [self._isinstance_test(n) if not compatibility_guard(self.ctx, n) else None for n in reads]
        return tests if tests and None not in tests else []

    def _isinstance_test(self, node: cst.CSTNode) -> Optional[tuple[cst.Call, Optional[cst.Tuple]]]:
        """``(call, None)`` for ``isinstance(x, node)``, ``(call, types)`` for ``node`` in the
        tuple ``types`` of ``isinstance(x, (node, other, ...))`` (``(call, None)`` for a
        one-type tuple): the builtin, ``x`` a name or an attribute (nothing to evaluate)."""
        up = parent(self.ctx, node)
        types = None
        if isinstance(up, cst.Element) and not isinstance(up, cst.StarredElement):
            types = parent(self.ctx, up)
            if not isinstance(types, cst.Tuple) or any(isinstance(e, cst.StarredElement) for e in types.elements):
                return None
            up = parent(self.ctx, types)
            if len(types.elements) == 1:
                types = None  # ``isinstance(x, (C,))`` is ``isinstance(x, C)``
        call = parent(self.ctx, up) if isinstance(up, cst.Arg) else None
        if not (isinstance(call, cst.Call) and isinstance(call.func, cst.Name) and call.func.value == "isinstance"
                and self.ctx.qualified_name(call.func) in (None, "builtins.isinstance")
                and not self.ctx.names.is_bound("isinstance")
                and len(call.args) == 2 and all(a.keyword is None and not a.star for a in call.args)
                and call.args[1] is up and _pure(call.args[0].value)):
            return None
        return call, types

    def visit_With(self, node: cst.With) -> None:
        """``with jax.spmd_mode("allow_all"):``: a context manager that did nothing (see
        :data:`NO_OP_CONTEXTS`) goes; its block stays, one level out when it was the only item."""
        if not self.check_all:
            return
        for item in node.items:
            call = item.item
            if not isinstance(call, cst.Call) or id(call.func) in self.handled:
                continue
            qualified = self.ctx.qualified_name(call.func)
            if qualified in NO_OP_CONTEXTS and self.missing(qualified) and not compatibility_guard(self.ctx, node):
                self.handled.add(id(call.func))
                if isinstance(call.func, cst.Attribute):
                    drop_binding_if_unused(self.ctx, head_name(call.func) or "")
                self._no_op_context(qualified, node, item)

    def _no_op_context_reads(self, node: cst.ImportFrom, local: str) -> list:
        """The ``with`` statements that enter the imported no-op context manager ``local``,
        when that is every read of it; else empty."""
        reads = self._reads_of_import(node, local) or []
        found = []
        for read in reads:
            call = self.ctx.parents.get(read)
            item = self.ctx.parents.get(call)
            statement = self.ctx.parents.get(item)
            if not (isinstance(call, cst.Call) and call.func is read and isinstance(item, cst.WithItem)
                    and item.item is call and isinstance(statement, cst.With)) or compatibility_guard(self.ctx, read) \
                    or not _no_op_context_removable(statement, item):
                return []  # a site left as it is keeps the import (and its report) too
            found.append((statement, item))
        return found

    def _no_op_context(self, qualified: str, statement: cst.With, item: cst.WithItem) -> None:
        removed, no_op_since, why = NO_OP_CONTEXTS[qualified]
        call = item.item
        short = qualified.rsplit(".", 1)[1]
        by_hand = f"a no-op since open-source jax {no_op_since}: delete the `with {short}(...)` and keep its block"
        if not _no_op_context_removable(statement, item):
            self.manual(call, qualified, by_hand)
            return
        message = f"{qualified} was removed in jax {removed}; {why}, so the `with` "
        if len(statement.items) > 1:
            index = statement.items.index(item)

            def edit(updated: cst.With) -> cst.CSTNode:
                items = [i for k, i in enumerate(updated.items) if k != index]
                items[-1] = items[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
                return updated.with_changes(items=items)

            self.report(statement, Safety.SAFE, message + "item entering it is dropped", edit,
                        kernel_receives="unchanged (not a custom call)")
            return

        def flatten(updated: cst.With) -> cst.FlattenSentinel:
            body = updated.body
            lead = list(updated.leading_lines)
            if isinstance(body, cst.SimpleStatementSuite):
                if body.trailing_whitespace.comment is not None:
                    lead.append(cst.EmptyLine(comment=body.trailing_whitespace.comment))
                return cst.FlattenSentinel([cst.SimpleStatementLine(body=body.body, leading_lines=lead)])
            first, *rest = body.body
            own = list(first.leading_lines)
            if body.header.comment is not None:
                lead.append(cst.EmptyLine(comment=body.header.comment))
                while own and own[0].comment is None:
                    own.pop(0)  # the comment stays on the line above the block's first statement
            return cst.FlattenSentinel([first.with_changes(leading_lines=[*lead, *own]), *rest])

        self.report(statement, Safety.SAFE, message + "statement goes and its block stays", flatten,
                    kernel_receives="unchanged (not a custom call)")

    def _never_instance(self, qualified: str, call: cst.Call, types: Optional[cst.Tuple]) -> None:
        """``isinstance(x, C)`` -> ``False``; ``C`` in a tuple of types leaves it."""
        name = qualified.rsplit(".", 1)[1]
        removed = NEVER_INSTANCES[qualified]
        if types is None:
            parent = self.ctx.parents.get(call)
            if isinstance(parent, cst.UnaryOperation) and isinstance(parent.operator, cst.Not) and parent.expression is call:
                # ``not isinstance(x, C)`` is True (helpers of jax-fenics: ``if not isinstance(
                # a, ConcreteArray): warn(...)``).
                self.report(parent, Safety.SAFE, f"{qualified} was removed in jax {removed} and nothing makes one any "
                            f"more: not isinstance(x, {name}) is True",
                            lambda updated: cst.Name("True", lpar=updated.lpar, rpar=updated.rpar),
                            kernel_receives="unchanged (not a custom call)")
                return
            self.report(call, Safety.SAFE, f"{qualified} was removed in jax {removed} and nothing makes one any more: "
                        f"isinstance(x, {name}) is False (the branch it guards, if any, is dead code now)",
                        lambda _updated: cst.Name("False"), kernel_receives="unchanged (not a custom call)")
            return

        def edit(updated: cst.CSTNode) -> cst.CSTNode:
            kept = [e for e in updated.elements if not (
                (get_full_name_for_node(e.value) or "").rsplit(".", 1)[-1] == name)]
            kept[-1] = kept[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT if len(kept) > 1 else cst.Comma())
            return updated.with_changes(elements=kept)

        self.report(types, Safety.SAFE, f"{qualified} was removed in jax {removed} and nothing makes one any more: "
                    f"dropped from the types isinstance tests (no value can match it)", edit,
                    kernel_receives="unchanged (not a custom call)")

    def _signature_annotation(self, node: cst.CSTNode) -> Union[cst.Param, cst.FunctionDef, None]:
        """The parameter, or the function by its return, whose annotation holds ``node``;
        ``None`` for a variable's annotation (a dataclass or NamedTuple field is declared by
        it) and outside annotations."""
        chain = list(reversed(self.ctx.ancestors_of(node)))
        for i, above in enumerate(chain):
            if isinstance(above, cst.Annotation):
                if not self._all_gone_here(above):
                    return None  # another rule reports a name in it, and keeps its import for it
                owner = self.ctx.parent_of(above)
                if isinstance(owner, cst.Param) or isinstance(owner, cst.FunctionDef) and owner.returns is above:
                    function = owner if isinstance(owner, cst.FunctionDef) else next(
                        (a for a in chain[i:] if isinstance(a, (cst.FunctionDef, cst.Lambda))), None)
                    # A decorator may read the annotations (functools.singledispatch's
                    # register, runtime type checkers): only an undecorated function's go.
                    return owner if isinstance(function, cst.FunctionDef) and not function.decorators else None
                if isinstance(owner, cst.AnnAssign) and owner.value is not None:
                    # A local variable's annotation is never evaluated (PEP 526), and a
                    # local declares no field: ``z: XlaOp = x`` is ``z = x``.
                    scope = next((a for a in chain[i:] if isinstance(a, (cst.FunctionDef, cst.ClassDef, cst.Lambda))), None)
                    return owner if isinstance(scope, cst.FunctionDef) else None
                return None
        return None

    def _all_gone_here(self, annotation: cst.Annotation) -> bool:
        """Whether every name of jax's in ``annotation`` that is gone is this rule's to
        report (``jax.lib.xla_client.XlaBuilder`` is xla-client-import's)."""
        for dotted in dotted_names(annotation):
            qualified = self.ctx.qualified_name(dotted) or ""
            if qualified.split(".")[0] in ("jax", "jaxlib") and first_missing(qualified) is not None \
                    and self.missing(qualified) is None and self.move_for(qualified) is None:
                return False
        return True

    def _postponed(self) -> bool:
        """``from __future__ import annotations``: no annotation is evaluated."""
        return any(isinstance(stmt, cst.SimpleStatementLine) and any(
            isinstance(small, cst.ImportFrom) and get_full_name_for_node(small.module) == "__future__"
            and not isinstance(small.names, cst.ImportStar) and any(a.name.value == "annotations" for a in small.names)
            for small in stmt.body) for stmt in self.ctx.module.body)

    def _extension_through_package(self, node: cst.Attribute, qualified: str, head: str) -> bool:
        """``jaxlib.xla_extension.ArrayImpl`` read through a plain ``import jaxlib``: the
        module is gone (jax 0.9.0) but no import of it is there for the engine to report."""
        if not (self.check_all and qualified.startswith(EXTENSION + ".")):
            return False
        bindings = [b for b in self.ctx.names.imports if b.local == head]
        if not bindings or any(b.qualified != "jaxlib" for b in bindings) \
                or any(b.qualified.startswith(EXTENSION) for b in self.ctx.names.imports):
            return False  # an import of the module itself is reported with its uses
        self._handle_chain(node.value)
        if not compatibility_guard(self.ctx, node):
            member = qualified[len(EXTENSION) + 1:].split(".")[0]
            self.manual(node, f"{EXTENSION}.{member}", EXTENSION_GUIDANCE.get(member, "jaxlib.xla_extension was deleted in "
                        "jax 0.9.0: use the jax / jax.extend API that does the same"))
        return True

    def _member_of_moved_missing(self, node: cst.Attribute, qualified: str) -> bool:
        """``jax.xla._force``: the module moved (``jax.xla`` is ``jax.interpreters.xla``) but
        the member is gone from the new home too. Moving only the module part would leave
        a reference as broken as before and no finding: report the whole name instead."""
        if not self.check_all:
            return False
        gone = self.missing(qualified)
        if gone is None or gone == qualified:
            return False
        found = self.move_for(gone)
        if found is None:
            return False
        new = found[0] + qualified[len(gone):]
        if found[1].module and (new in VALUES or new in MOVED or qualified in MOVED
                                or self.call_rewrite(qualified) is not None):
            return False  # a member of a module moved whole that has its own rewrite (batching.not_mapped)
        if _owned(new) or first_missing(new) is None:
            return False
        self._handle_chain(node.value)
        if compatibility_guard(self.ctx, node):
            return True
        head = (get_full_name_for_node(node) or "").split(".")[0]
        onward = self.move_for(new) if new in MOVED and not MOVED[new].annotation_only else None
        if onward is not None:
            # ``jax.xla.Device``: the member moved on from the module's new home (jax.Device).
            module, _, name = onward[0].rpartition(".")
            drop_binding_if_unused(self.ctx, head)
            self.report(node, Safety.SAFE, f"{qualified} ({gone} is {found[0]} now) was removed in jax "
                        f"{onward[1].removed}; the same object is {onward[0]}",
                        lambda _updated: cst.parse_expression(member_spelling(self.ctx, module, name)),
                        kernel_receives="unchanged (the same objects)")
            return True
        if new in XLA_OP_TYPES and self._typevar_constraint(node):
            self._xla_op_constraint(node, head, qualified)  # kfac-jax's ``jax.xla.XlaOp``
            return True
        if any(b.local == head and b.qualified == gone for b in self.ctx.names.imports):
            # Read through a name whose import this run moves (``from jax import xla as x``):
            # the site then reads ``new``, and says so, on this run and the next alike.
            self.manual(node, new)
        else:
            guidance = _guidance(new) or (f"{MOVED[new].new} in annotations; {MOVED[new].annotation_only}"
                                          if new in MOVED and MOVED[new].annotation_only else "")
            self.manual(node, qualified, f"{gone} is {found[0]} now, which has no "
                        f"{qualified[len(gone) + 1:]} either; " + (guidance or "no public replacement is known"))
        return True

    def _handle_chain(self, node: cst.BaseExpression) -> None:
        while isinstance(node, cst.Attribute):
            self.handled.add(id(node))
            node = node.value

    def _moved_import_covers(self, head: str, qualified: str, new: str) -> bool:
        """Whether the import rewrite that moves ``head`` also makes ``qualified`` read
        ``new``: not when ``head`` is a module moved whole and this member went elsewhere."""
        for binding in self.ctx.names.imports:
            if binding.local == head and binding.qualified in MOVED:
                entry = MOVED[binding.qualified]
                if entry.module and qualified.startswith(binding.qualified + "."):
                    return entry.new + qualified[len(binding.qualified):] == new
                # ``TPUMemorySpace.ANY`` of ``from ...tpu import TPUMemorySpace``: the class
                # moved, and this member of it went elsewhere (``pl.ANY``).
                return entry.module or qualified == binding.qualified or qualified not in MOVED
        return False

    def _through_moved_module(self, module: str, name: str) -> Optional[str]:
        """``plgpu.CompilerParams`` where ``plgpu`` binds a module that moved whole to
        ``module`` (``from jax.experimental.pallas import gpu as plgpu``, which the import
        rewrite makes the Triton module): the member read through the binding it has."""
        for binding in self.ctx.names.imports:
            entry = MOVED.get(binding.qualified)
            if entry is not None and entry.module and entry.new == module and binding.top_level \
                    and not self.ctx.names._maybe_rebound(binding.local) and binding.from_module is not None \
                    and compatibility_guard(self.ctx, binding.statement) is None \
                    and tuple(self.ctx.options.target_jax) >= entry.since:
                return f"{binding.local}.{name}"
        return None

    def _import_line_moves(self, head: str) -> bool:
        """Whether the use names a binding that the import rewrite already moves."""
        for binding in self.ctx.names.imports:
            if binding.local == head and binding.qualified in MOVED:
                return True
        return False
