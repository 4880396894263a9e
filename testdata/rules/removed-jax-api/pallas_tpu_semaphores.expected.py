"""A ring step of a TPU all-reduce (the Pallas distributed-TPU guide's shape, 2025): the
semaphore helpers were pltpu's until jax 0.10 deprecated them (pl has them; removed from pltpu in 0.11.0)."""
import functools

import jax
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def right_permute_kernel(input_ref, output_ref, send_sem, recv_sem, *, axis_name):
    my_id = jax.lax.axis_index(axis_name)
    num_devices = jax.lax.psum(1, axis_name)
    right_neighbor = jax.lax.rem(my_id + 1, num_devices)
    copy = pltpu.make_async_remote_copy(
        src_ref=input_ref,
        dst_ref=output_ref,
        send_sem=send_sem,
        recv_sem=recv_sem,
        device_id=(right_neighbor,),
        device_id_type=pl.DeviceIdType.MESH,
    )
    copy.start()
    copy.wait()


def barrier_kernel(sem_ref, *, axis_name):
    barrier = pltpu.get_barrier_semaphore()
    neighbor = jax.lax.rem(jax.lax.axis_index(axis_name) + 1, jax.lax.psum(1, axis_name))
    pl.semaphore_signal(barrier, 1, device_id=(neighbor,), device_id_type=pl.DeviceIdType.MESH)
    pl.semaphore_wait(barrier, 1)
    sem_ref[0] = pl.semaphore_read(barrier)


SCRATCH = [pltpu.SemaphoreType.DMA] * 2
right_permute = functools.partial(right_permute_kernel, axis_name="x")
