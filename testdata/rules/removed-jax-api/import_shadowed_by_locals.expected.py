"""A removed name imported at module level that only a function's own local of the same name
is read as (`ops = factory()`): no read reaches the import, so it goes like an unused one."""


def f(factory, x):
    ops = factory()
    return ops.thing(x)
