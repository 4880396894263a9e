"""Run a serialised StableHLO module, as a TF-to-JAX bridge does (and a target older than
0.7.2, which lacks jax.extend.mlir's copies, is left alone: see the tests)."""
import jax
from jax.interpreters import mlir
from jaxlib.mlir import ir
import jax.extend.mlir


def load(payload: bytes, version: int) -> str:
  if version >= 4:
    text = jax.extend.mlir.deserialize_portable_artifact(  # pylint: disable=protected-access
        payload
    )
  else:
    with mlir.make_ir_context():
      text = str(ir.Module.parse(payload))
  return text


def save(text: str) -> bytes:
  return jax.extend.mlir.serialize_portable_artifact(text, "0.9.0")
