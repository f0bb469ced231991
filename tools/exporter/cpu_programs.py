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


@program("cpu_conv_bn")
def cpu_conv_bn():
    # An extern convolution between fused kernels (batch norm folded in eval).
    model = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU()).eval()
    return model, (randn(2, 3, 10, 10),)


@program("cpu_attention")
def cpu_attention():
    # Scaled dot-product attention: bmm externs or a fallback, softmax kernels.
    def fn(q, k, v):
        return F.scaled_dot_product_attention(q, k, v), (q @ k.transpose(-1, -2)).softmax(-1)
    return fn, (randn(2, 4, 16, 8), randn(2, 4, 16, 8), randn(2, 4, 16, 8))


@program("cpu_topk_scan")
def cpu_topk_scan():
    # Multi-output fallbacks (topk), a scan and an argmax.
    def fn(x):
        values, indices = x.topk(3, dim=1)
        return values * 2, indices, x.cumsum(1), x.argmax(1)
    return fn, (randn(6, 20),)


@program("cpu_cond")
def cpu_cond():
    # torch.cond: two subgraphs, each with its C++ kernel.
    def fn(x):
        return torch.cond(x.sum() > 0, lambda t: t.sin() * 2, lambda t: t.cos() - 1, (x,))
    return fn, (randn(4, 6),)


@program("cpu_dynamic_2d", dynamic=True)
def cpu_dynamic_2d():
    # Two size symbols, a reduction over one of them.
    def fn(x, w):
        return (x @ w).relu().sum(0), x.t().contiguous()
    return fn, (randn(9, 7), randn(7, 5))


@program("cpu_bf16_masks")
def cpu_bf16_masks():
    # bfloat16 and bool tensors: kernels with 'at::BFloat16*' and 'bool*'
    # parameters.
    def fn(x, y):
        mask = x > 0
        return mask, torch.where(mask, x, y).to(torch.bfloat16), (x * y).sum(1)
    return fn, (randn(8, 12), randn(8, 12))


@program("cpu_nan_asserts")
def cpu_nan_asserts():
    # Inductor's nan_asserts: every tensor input and every kernel's tensors
    # checked for NaN and Inf, an extern call between the kernels, a torch.cond.
    import torch._inductor.config as config
    config.nan_asserts = True

    def fn(x, w):
        y = (x.exp() + 1).log() @ w
        # A subgraph's inputs are checked too.
        return torch.cond(y.sum() > 0, lambda t: t.tanh() * 2, lambda t: t - 1, (y,))
    return fn, (randn(16, 16), randn(16, 8))
