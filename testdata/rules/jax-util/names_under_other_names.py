from jax.util import safe_map as smap, safe_zip as szip, split_list
from jax.util import prod as size_of


def split_shapes(shapes, counts):
    sizes = smap(size_of, shapes)
    heads, rest = split_list(sizes, counts)
    return heads, rest, szip(shapes, sizes)
