"""Programs compiled for the CPU: Inductor's cpp backend writes C++ kernels
(`cpp_fused_*`), which wirc's Python wrapper calls through
`async_compile.cpp_pybinding` as Inductor's does. `validate.py --program-set
cpu --modes python` runs them without a GPU: torch and a C++ compiler are
enough. FX graphs call Triton kernels only, so these have no FX form.

Entries take the options of corpus.py's (corpus.registry).
"""

import torch
import torch.nn as nn
import torch.nn.functional as F

from corpus import registry

PROGRAMS = {}
program = registry(PROGRAMS)


def randn(*shape):
    return torch.randn(*shape)


@program("cpu_pointwise_reduction")
def cpu_pointwise_reduction():
    # One fused kernel with two outputs: a row sum and a pointwise product.
    def fn(x, y):
        return (x.sin() + y).sum(dim=1), x * 2
    return fn, (randn(8, 16), randn(8, 16))


@program("cpu_mlp")
def cpu_mlp():
    # addmm extern calls between fused C++ kernels.
    model = nn.Sequential(nn.Linear(32, 64), nn.GELU(), nn.Linear(64, 16)).eval()
    return model, (randn(8, 32),)


@program("cpu_layernorm_softmax")
def cpu_layernorm_softmax():
    norm = nn.LayerNorm(48).eval()

    def fn(x):
        return torch.softmax(norm(x) * 2.0, dim=-1)
    return fn, (randn(4, 10, 48),)


@program("cpu_dynamic_1d", dynamic=True)
def cpu_dynamic_1d():
    # A size symbol passed to the kernel as an int64_t.
    def fn(x, y):
        return (x * y).cumsum(0) + x.mean()
    return fn, (randn(37), randn(37))


@program("cpu_views_mutation")
def cpu_views_mutation():
    # A transposed view into a kernel, and an input updated in place.
    def fn(x, acc):
        acc.add_(x.t().relu())
        return acc * 2, x[:, 1:].contiguous()
    return fn, (randn(6, 5), randn(5, 6))


@program("cpu_training", training=True)
def cpu_training():
    # Forward and backward graphs, each with C++ kernels.
    model = nn.Sequential(nn.Linear(16, 32), nn.Tanh(), nn.Linear(32, 4))

    def fn(x, target):
        model.zero_grad(set_to_none=True)
        loss = F.mse_loss(model(x), target)
        loss.backward()
        return loss.detach(), model[0].weight.grad.clone(), model[2].bias.grad.clone()
    return fn, (randn(8, 16), randn(8, 4))
