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


# Programs written after the first thirteen passed, and run before anything
# was changed for them.

@program("cpu_conv_pool")
def cpu_conv_pool():
    # A 2-D convolution (extern), max pooling with indices, adaptive average
    # pooling and a linear head.
    model = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                          nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(8, 4)).eval()
    return model, (randn(2, 3, 16, 16),)


@program("cpu_embedding_scatter")
def cpu_embedding_scatter():
    # An embedding lookup, then scatter_add and index_put fallbacks.
    table = torch.randn(50, 16)

    def fn(idx, src):
        emb = F.embedding(idx, table)
        out = torch.zeros(10, 16).scatter_add(0, (idx % 10).unsqueeze(1).expand(-1, 16), emb)
        out[idx[:3] % 10] = src
        return out, emb.sum(1)
    return fn, (torch.randint(0, 50, (12,)), randn(3, 16))


@program("cpu_while_loop")
def cpu_while_loop():
    # torch.while_loop carrying a counter and a tensor.
    def fn(x):
        def cond(i, t):
            return i < 4

        def body(i, t):
            return i + 1, t * 0.5 + t.sin()
        return torch._higher_order_ops.while_loop(cond, body, (torch.tensor(0), x))
    return fn, (randn(6, 5),)


@program("cpu_masked_select", data_dependent=True)
def cpu_masked_select():
    # A data-dependent size: boolean masking, then a reduction over it.
    def fn(x):
        picked = x[x > 0]
        return picked * 2, picked.sum()
    return fn, (randn(40),)


@program("cpu_int_ops")
def cpu_int_ops():
    # Integer and bool tensors: floor division, remainder, bitwise ops, a
    # comparison and a cast.
    def fn(a, b):
        q = torch.div(a, b.clamp(min=1), rounding_mode="floor")
        return q, a % 7, (a & b) | (a ^ 3), (a > b).to(torch.int32).sum()
    return fn, (torch.randint(-50, 50, (8, 9)), torch.randint(0, 20, (8, 9)))


@program("cpu_dynamic_views", dynamic=True)
def cpu_dynamic_views():
    # Views of a dynamic input: a transpose, a slice with a step, a reshape
    # and a cat.
    def fn(x):
        t = x.t()[:, ::2]
        return torch.cat([t, t * 2], dim=1).reshape(-1), x.narrow(0, 1, x.shape[0] - 2).sum(0)
    return fn, (randn(11, 6),)


@program("cpu_sort_gather")
def cpu_sort_gather():
    # sort (a multi-output fallback), gather with its indices, and a cumulative
    # product.
    def fn(x):
        values, order = x.sort(dim=1, descending=True)
        return values.cumprod(1), torch.gather(x, 1, order[:, :3]), order
    return fn, (randn(5, 9),)


@program("cpu_gru_step", training=True)
def cpu_gru_step():
    # A GRU cell unrolled over three steps, forward and backward.
    cell = nn.GRUCell(6, 8)

    def fn(xs, h):
        cell.zero_grad(set_to_none=True)
        for x in xs.unbind(0):
            h = cell(x, h)
        loss = h.pow(2).mean()
        loss.backward()
        return loss.detach(), cell.weight_ih.grad.clone()
    return fn, (randn(3, 4, 6), randn(4, 8))


@program("cpu_batchnorm_train", training=True)
def cpu_batchnorm_train():
    # Batch norm in training mode: its running statistics (module buffers)
    # updated in place, a group norm after it, forward and backward.
    model = nn.Sequential(nn.Conv2d(4, 8, 1), nn.BatchNorm2d(8), nn.GroupNorm(2, 8), nn.SiLU())

    def fn(x):
        # The eager and compiled runs update the same running statistics:
        # each starts them afresh.
        model.zero_grad(set_to_none=True)
        model[1].reset_running_stats()
        out = model(x)
        out.sum().backward()
        return out.detach(), model[1].running_mean.clone(), model[0].weight.grad.clone()
    return fn, (randn(2, 4, 5, 5),)


@program("cpu_slice_mutation")
def cpu_slice_mutation():
    # In-place updates of slices of an input, then a read of the whole.
    def fn(x, y):
        x[:, 2:5].mul_(2)
        x[1].add_(y)
        return x.sum(0), x[:, ::3] * 1
    return fn, (randn(4, 9), randn(9))


@program("cpu_split_unbind")
def cpu_split_unbind():
    # Outputs that are views: split, chunk and unbind of one tensor.
    def fn(x):
        a, b = x.split([3, 5], dim=1)
        c = x.chunk(2, dim=0)
        rows = (x * 2).unbind(0)
        return a, b.t(), c[1], rows[0] + rows[-1]
    return fn, (randn(6, 8),)


@program("cpu_reductions")
def cpu_reductions():
    # var_mean, logsumexp, amax with keepdim, prod and any/all.
    def fn(x):
        var, mean = torch.var_mean(x, dim=1, correction=1)
        return (var, mean, torch.logsumexp(x, 0), x.amax(1, keepdim=True), (x.abs() + 0.5).prod(1),
                (x > 1).any(1), (x > -3).all())
    return fn, (randn(7, 10),)


@program("cpu_pad_flip_roll")
def cpu_pad_flip_roll():
    # Copies with new layouts: constant and reflection padding, flip, roll.
    def fn(x):
        return (F.pad(x, (1, 2, 0, 1), value=0.5), F.pad(x.unsqueeze(0), (2, 2), mode="reflect"),
                x.flip(1), x.roll(3, 0))
    return fn, (randn(6, 7),)


@program("cpu_nonzero_index", data_dependent=True)
def cpu_nonzero_index():
    # nonzero (an unbacked size), then index_select with its result.
    def fn(x, w):
        idx = (x.sum(1) > 0).nonzero().squeeze(1)
        return w.index_select(0, idx) * 2, idx
    return fn, (randn(12, 4), randn(12, 3))


@program("cpu_attention_dynamic", dynamic=True)
def cpu_attention_dynamic():
    # Scaled dot-product attention with a dynamic sequence length.
    def fn(q, k, v):
        return F.scaled_dot_product_attention(q, k, v, is_causal=True).sum(-1)
    return fn, (randn(2, 3, 9, 8), randn(2, 3, 9, 8), randn(2, 3, 9, 8))


@program("cpu_float16")
def cpu_float16():
    # float16 on the CPU: kernels with 'at::Half*' parameters and an upcast.
    def fn(x, y):
        h = (x.half() * y.half()).relu()
        return h, h.float().mean(1)
    return fn, (randn(8, 16), randn(8, 16))


@program("cpu_graph_break")
def cpu_graph_break():
    # Two graphs around a graph break, the second taking the first's output.
    def fn(x):
        y = (x * 3).sin()
        torch._dynamo.graph_break()
        return y.cos() + x
    return fn, (randn(5, 6),)


@program("cpu_view_mutation_chain")
def cpu_view_mutation_chain():
    # An input mutated through a transposed view of a reshaped view.
    def fn(x):
        x.view(3, 4, 2).transpose(0, 2).mul_(3)
        return x + 1
    return fn, (randn(12, 2),)


@program("cpu_empty_outputs")
def cpu_empty_outputs():
    # Outputs with a dimension of size 0 and an expanded (stride 0) output.
    def fn(x):
        return x[:, :0] * 2, x.sum(1, keepdim=True).expand(-1, 5), torch.empty(0, 3) + 1
    return fn, (randn(4, 6),)


@program("cpu_nested_cond_dynamic", dynamic=True)
def cpu_nested_cond_dynamic():
    # torch.cond inside a torch.cond branch, under dynamic shapes.
    def inner(t):
        return torch.cond(t.shape[0] > 4, lambda u: u * 2, lambda u: u - 2, (t,))

    def fn(x):
        return torch.cond(x.sum() > 0, lambda t: inner(t).sin(), lambda t: t.cos(), (x,))
    return fn, (randn(7, 3),)


@program("cpu_small_ints")
def cpu_small_ints():
    # uint8 and int8 inputs, a clamp, argmin and a cast to float.
    def fn(a, b):
        s = a.to(torch.int16) + b
        return s.clamp(-20, 200), s.argmin(1), (s.float() / 3).round()
    return fn, (torch.randint(0, 255, (6, 7), dtype=torch.uint8),
                torch.randint(-100, 100, (6, 7), dtype=torch.int8))


@program("cpu_scalar_tensor")
def cpu_scalar_tensor():
    # A 0-d tensor input used as a scalar, and a Python float.
    def fn(x, scale):
        return x * scale + 0.25, (x - scale).abs().max()
    return fn, (randn(4, 4), torch.tensor(1.5))


@program("cpu_index_put_dynamic", dynamic=True)
def cpu_index_put_dynamic():
    # index_put with accumulate into a dynamic-size tensor.
    def fn(x, idx, v):
        out = x.clone()
        out.index_put_((idx,), v, accumulate=True)
        return out, out.cumsum(0)
    return fn, (randn(10, 3), torch.tensor([1, 3, 3, 7]), randn(4, 3))


@program("cpu_layer_stack")
def cpu_layer_stack():
    # A small transformer encoder layer (attention, layer norm, MLP) in eval mode.
    layer = nn.TransformerEncoderLayer(16, 2, 32, dropout=0.0, batch_first=True).eval()
    return layer, (randn(2, 5, 16),)


@program("cpu_training_dynamic", dynamic=True, training=True)
def cpu_training_dynamic():
    # Forward and backward under dynamic shapes: an MLP with a tanh.
    model = nn.Sequential(nn.Linear(6, 12), nn.Tanh(), nn.Linear(12, 1))

    def fn(x):
        model.zero_grad(set_to_none=True)
        loss = model(x).pow(2).mean()
        loss.backward()
        return loss.detach(), model[0].weight.grad.clone()
    return fn, (randn(9, 6),)


@program("cpu_custom_op")
def cpu_custom_op():
    # A custom operator (a fallback by its qualified name) between kernels.
    @torch.library.custom_op("wirc_cpu::scale_add", mutates_args=())
    def scale_add(x: torch.Tensor, s: float) -> torch.Tensor:
        return x * s + 1

    @scale_add.register_fake
    def _(x, s):
        return torch.empty_like(x)

    def fn(x):
        return scale_add(x.sin(), 3.0).cos()
    return fn, (randn(5, 5),)


@program("cpu_nested_region")
def cpu_nested_region():
    # A nested compile region called twice (invoke_subgraph).
    @torch.compiler.nested_compile_region
    def block(t):
        return (t * 2).relu() + 1

    def fn(x):
        return block(block(x).t().contiguous())
    return fn, (randn(4, 6),)


@program("cpu_complex")
def cpu_complex():
    # Complex tensors: a product with a complex constant and the real view.
    def fn(x):
        z = torch.view_as_complex(x) * (1 + 2j)
        return torch.view_as_real(z) + 1, z.abs()
    return fn, (randn(6, 2),)


@program("cpu_cat_dynamic", dynamic=True)
def cpu_cat_dynamic():
    # A cat of three dynamic inputs along a dynamic dimension, then a softmax.
    def fn(a, b, c):
        return torch.softmax(torch.cat([a, b * 2, c], 0), 0)
    return fn, (randn(3, 4), randn(5, 4), randn(2, 4))


@program("cpu_buffer_mutation")
def cpu_buffer_mutation():
    # A module that updates one of its buffers in every call.
    class Counter(nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("total", torch.zeros(4))

        def forward(self, x):
            self.total.zero_()
            self.total.add_(x.sum(0))
            return x * self.total

    return Counter(), (randn(3, 4),)


@program("cpu_item_bool", data_dependent=True)
def cpu_item_bool():
    # A bool read with .item() (an unbacked symbol) that selects a size.
    def fn(x):
        n = (x.sum() > 0).to(torch.int64).item()
        torch._check(n >= 0)
        torch._check(n <= 1)
        return x[: n + 2] * 3
    return fn, (randn(6, 3),)


@program("cpu_unfold_im2col")
def cpu_unfold_im2col():
    # unfold (im2col) and fold, an extern matmul between them.
    def fn(x, w):
        cols = F.unfold(x, kernel_size=2, stride=1)
        return F.fold(w @ cols, output_size=(6, 6), kernel_size=2), cols.shape[-1] * 1.0
    return fn, (randn(1, 3, 6, 6), randn(12, 12))


@program("cpu_where_scalar_dynamic", dynamic=True)
def cpu_where_scalar_dynamic():
    # where with a scalar, clamp_min and a mean over a dynamic dimension.
    def fn(x):
        return torch.where(x > 0, x, 0.1 * x).clamp_min(-0.5).mean(0), x.shape[0] * x
    return fn, (randn(13, 4),)


@program("cpu_argsort_topk_dynamic", dynamic=True)
def cpu_argsort_topk_dynamic():
    # argsort and topk (multi-output fallbacks) over a dynamic dimension.
    def fn(x):
        values, idx = x.topk(2, dim=0)
        return values, idx, x.argsort(dim=0)
    return fn, (randn(9, 3),)


@program("cpu_bmm_softmax_bf16")
def cpu_bmm_softmax_bf16():
    # bfloat16 batched matmuls around a softmax computed in float32.
    def fn(q, k):
        s = torch.bmm(q.bfloat16(), k.bfloat16().transpose(1, 2))
        return torch.softmax(s.float(), -1).bfloat16() @ k.bfloat16()
    return fn, (randn(2, 4, 8), randn(2, 6, 8))


@program("cpu_linalg_fallbacks")
def cpu_linalg_fallbacks():
    # LAPACK fallbacks with several outputs (qr, slogdet) and a cholesky
    # between fused kernels.
    def fn(a, b):
        q, r = torch.linalg.qr(a)
        spd = b @ b.t() + torch.eye(b.shape[0])
        sign, logdet = torch.linalg.slogdet(spd)
        return (q @ r).abs().sum(0), torch.linalg.cholesky(spd).tril() * 2, sign * logdet
    return fn, (randn(6, 4), randn(5, 5))


@program("cpu_cross_entropy_train", training=True)
def cpu_cross_entropy_train():
    # Cross entropy with label smoothing and integer targets: the backward
    # graph scatters into the gradient of the log-softmax.
    model = nn.Linear(12, 7)
    target = torch.tensor([0, 3, 6, 2, 2, 5])

    def fn(x):
        model.zero_grad(set_to_none=True)
        loss = F.cross_entropy(model(x), target, label_smoothing=0.1)
        loss.backward()
        return loss.detach(), model.weight.grad.clone()
    return fn, (randn(6, 12),)


@program("cpu_freezing")
def cpu_freezing():
    # Inductor's freezing: parameters become constants of the graph, folded
    # and packed for the C++ backend's matmuls and convolutions.
    # Inductor freezes only what it compiles with gradients off; each
    # program runs in a process of its own.
    import torch._inductor.config as config
    config.freezing = True
    torch.set_grad_enabled(False)
    model = nn.Sequential(nn.Conv2d(3, 6, 3), nn.ReLU(), nn.Flatten(),
                          nn.Linear(6 * 4 * 4, 5)).eval()

    def fn(x):
        return model(x).softmax(-1)
    return fn, (randn(2, 3, 6, 6),)


@program("cpu_scan_variants")
def cpu_scan_variants():
    # cumprod, logcumsumexp and cummax (values and indices) along two dims.
    def fn(x):
        values, idx = x.cummax(dim=0)
        return x.cumprod(1), x.logcumsumexp(0), values, idx
    return fn, (randn(7, 5),)


@program("cpu_bucketize_search")
def cpu_bucketize_search():
    # bucketize and searchsorted against sorted boundaries: integer outputs.
    def fn(x, boundaries):
        b = boundaries.sort().values
        return torch.bucketize(x, b), torch.searchsorted(b, x.flatten().contiguous(), right=True)
    return fn, (randn(4, 6), randn(9))


@program("cpu_unique", data_dependent=True)
def cpu_unique():
    # unique: an output whose size only the data decides.
    def fn(x):
        values, counts = torch.unique(x.round(), return_counts=True)
        return values * 2, counts
    return fn, (randn(20),)


@program("cpu_fft_roundtrip")
def cpu_fft_roundtrip():
    # rfft and irfft: complex intermediates between real kernels.
    def fn(x):
        spectrum = torch.fft.rfft(x * 2, dim=-1)
        return torch.fft.irfft(spectrum * 0.5, n=x.shape[-1], dim=-1), spectrum.abs()
    return fn, (randn(3, 16),)


@program("cpu_interpolate_grid_sample")
def cpu_interpolate_grid_sample():
    # Bilinear upsampling and grid_sample: index arithmetic in the kernels.
    def fn(x, grid):
        up = F.interpolate(x, scale_factor=2, mode="bilinear", align_corners=False)
        return F.grid_sample(up, grid.tanh(), align_corners=False), up.mean((2, 3))
    return fn, (randn(1, 2, 5, 5), randn(1, 4, 4, 2))


@program("cpu_channels_last")
def cpu_channels_last():
    # A channels-last input and convolution: outputs with permuted strides.
    conv = nn.Conv2d(4, 8, 3, padding=1).eval()

    def fn(x):
        y = conv(x)
        return y.relu(), y.permute(0, 2, 3, 1)[..., :3]
    return fn, (randn(2, 4, 6, 6).to(memory_format=torch.channels_last),)


@program("cpu_aliased_outputs")
def cpu_aliased_outputs():
    # The same tensor returned twice, an input returned as is, views of an
    # input and of a computed tensor among the outputs.
    def fn(x, y):
        z = x * y
        return z, z, y, x[1:], z.t(), z.view(-1)[::2]
    return fn, (randn(4, 4), randn(4, 4))


@program("cpu_duplicate_inputs")
def cpu_duplicate_inputs():
    # One tensor passed as two arguments, one of them updated in place.
    def fn(a, b, c):
        a.mul_(2)
        return a + b, c.sin()
    x = randn(3, 3)
    return fn, (x, x, randn(3))


@program("cpu_strided_inplace_input")
def cpu_strided_inplace_input():
    # In-place updates of strided views of an input (every other row, a
    # column) and of a whole input through copy_.
    def fn(x, out):
        x[::2].mul_(3)
        x[:, 1].add_(1)
        out.copy_(x.t() * 0.5)
        return x.sum()
    return fn, (randn(6, 4), randn(4, 6))


@program("cpu_memory_planning")
def cpu_memory_planning():
    # Inductor's pooled memory planning on the CPU: intermediates carved from
    # pools that the wrapper allocates once.
    import torch._inductor.config as config
    config.memory_planning = True

    def fn(x, w):
        h = x
        for _ in range(4):
            h = (h @ w).relu() + h.sin()
        return h.sum(0), h[:2]
    return fn, (randn(16, 16), randn(16, 16))


@program("cpu_memory_planning_dynamic", dynamic=True)
def cpu_memory_planning_dynamic():
    # Pooled memory planning where the pools' sizes are expressions of a
    # dynamic batch.
    import torch._inductor.config as config
    config.memory_planning = True

    def fn(x, w):
        a = (x @ w).tanh()
        b = (a @ w).relu() * a
        return (b @ w).softmax(-1), a.mean(0)
    return fn, (randn(10, 8), randn(8, 8))


@program("cpu_profiler_mark")
def cpu_profiler_mark():
    # The wrapper's call marked for the profiler (record_function around it).
    import torch._inductor.config as config
    config.profiler_mark_wrapper_call = True

    def fn(x, y):
        return (x @ y).relu() + 1, x.sum()
    return fn, (randn(5, 6), randn(6, 4))


@program("cpu_scalar_kernels")
def cpu_scalar_kernels():
    # C++ kernels without vector instructions, and strides kept as Inductor
    # finds best instead of as eager's.
    import torch._inductor.config as config
    config.cpp.vec_isa_ok = False
    config.keep_output_stride = False

    def fn(x):
        return x.t().exp() * 2, x.amax(1)
    return fn, (randn(9, 7),)


@program("cpu_quantize_int8")
def cpu_quantize_int8():
    # A quantize and dequantize round trip: int8 and uint8 tensors between
    # float kernels.
    def fn(x, scale):
        q = (x / scale).round().clamp(-128, 127).to(torch.int8)
        u = (q.to(torch.int16) + 128).to(torch.uint8)
        return q, u, (q.float() * scale - x).abs().max()
    return fn, (randn(8, 8), torch.tensor(0.05))


@program("cpu_bool_any_all")
def cpu_bool_any_all():
    # Boolean outputs and any/all reductions.
    def fn(x, y):
        m = (x > 0) & (y < 0.5)
        return m, m.any(1), m.all(0), (x.isnan() | m).sum()
    return fn, (randn(5, 6), randn(5, 6))


@program("cpu_zero_size")
def cpu_zero_size():
    # Inputs with a dimension of size zero: empty buffers and kernels with
    # nothing to do, next to a tensor that is not empty.
    def fn(x, e):
        return e * 2, e.sum(0), torch.cat([x, e], 0).mean(0)
    return fn, (randn(3, 4), randn(0, 4))


@program("cpu_scalar_arguments", dynamic=True)
def cpu_scalar_arguments():
    # Python numbers as arguments: with dynamic shapes an int becomes a size
    # symbol the wrapper is passed.
    def fn(x, n, alpha):
        return x * n + alpha, x.narrow(0, 0, n)
    return fn, (randn(7, 3), 4, 0.5)


@program("cpu_flex_attention")
def cpu_flex_attention():
    # flex_attention with a causal block mask: Inductor's C++ template kernel
    # and the mask's index tensors as extra arguments.
    from torch.nn.attention.flex_attention import create_block_mask, flex_attention

    def causal(b, h, q, kv):
        return q >= kv
    mask = create_block_mask(causal, None, None, 128, 128, device="cpu")

    def fn(q, k, v):
        return flex_attention(q, k, v, block_mask=mask, score_mod=lambda s, b, h, q, kv: s * 0.5)
    return fn, (randn(1, 2, 128, 16), randn(1, 2, 128, 16), randn(1, 2, 128, 16))


@program("cpu_lstm")
def cpu_lstm():
    # An LSTM layer: the mkldnn RNN fallback with several outputs (dynamo
    # leaves RNN modules to eager unless told otherwise). Inference only:
    # torch 2.11's Inductor itself fails on this layer with gradients on.
    torch._dynamo.config.allow_rnn = True
    torch.set_grad_enabled(False)
    lstm = nn.LSTM(8, 12, batch_first=True).eval()

    def fn(x):
        out, (h, c) = lstm(x)
        return out.relu(), h + c
    return fn, (randn(2, 5, 8),)


@program("cpu_embedding_bag_pool_indices")
def cpu_embedding_bag_pool_indices():
    # embedding_bag with offsets and max_pool2d with indices: fallbacks
    # whose extra outputs the program keeps.
    table = torch.randn(10, 4)

    def fn(idx, offsets, img):
        bags = F.embedding_bag(idx, table, offsets, mode="sum")
        pooled, where = F.max_pool2d(img, 2, return_indices=True)
        return bags * 2, pooled, where
    return fn, (torch.tensor([1, 2, 4, 5, 4, 3, 2, 9]), torch.tensor([0, 3]), randn(1, 2, 6, 6))


@program("cpu_autocast_bf16")
def cpu_autocast_bf16():
    # CPU autocast: linear layers in bfloat16, the rest in float32.
    model = nn.Sequential(nn.Linear(16, 16), nn.SiLU(), nn.Linear(16, 8)).eval()

    def fn(x):
        with torch.autocast("cpu", dtype=torch.bfloat16):
            y = model(x)
        return y.float().softmax(-1)
    return fn, (randn(4, 16),)


@program("cpu_sym_float", dynamic=True)
def cpu_sym_float():
    # Size arithmetic in floating point: a scale computed from a dynamic size.
    def fn(x):
        scale = x.shape[0] / 3.0
        return x * scale, (x.sum() / x.shape[1]) ** 0.5
    return fn, (randn(7, 5).abs(),)


@program("cpu_tolist", data_dependent=True)
def cpu_tolist():
    # tolist: one scalar read from the tensor per element, used as sizes.
    def fn(x, lengths):
        a, b = lengths.tolist()
        torch._check(a >= 0)
        torch._check(b >= 0)
        torch._check(a + b <= x.shape[0])
        return x[:a].sum(0), x[a:a + b] * 2
    return fn, (randn(8, 3), torch.tensor([3, 4]))


@program("cpu_nll_loss2d_train", training=True)
def cpu_nll_loss2d_train():
    # A per-pixel classification loss with ignored labels, and its backward.
    conv = nn.Conv2d(3, 4, 1)
    target = torch.tensor([[[0, 1, 3], [-100, 2, 2], [1, -100, 0]]])

    def fn(x):
        conv.zero_grad(set_to_none=True)
        loss = F.cross_entropy(conv(x), target, ignore_index=-100)
        loss.backward()
        return loss.detach(), conv.weight.grad.clone()
    return fn, (randn(1, 3, 3, 3),)


@program("cpu_cpp_wrapper_declined", export_error="cpp_wrapper is on")
def cpu_cpp_wrapper_declined():
    # Inductor's C++ wrapper: the exporter never sees the graph's wrapper and
    # must say so, not export nothing.
    import torch._inductor.config as config
    config.cpp_wrapper = True

    def fn(x):
        return (x.sin() + 1).sum(0)
    return fn, (randn(8, 8),)


@program("cpu_fx_wrapper_declined", export_error="FX wrapper is on")
def cpu_fx_wrapper_declined():
    # Inductor's own FX wrapper codegen, declined the same way.
    import torch._inductor.config as config
    config.fx_wrapper = True

    def fn(x):
        return x.relu() * 2
    return fn, (randn(8, 8),)


@program("cpu_dropout_train", training=True, rng=True)
def cpu_dropout_train():
    # Dropout in training: Inductor's random numbers on the CPU, in the
    # forward and the mask replayed in the backward.
    model = nn.Sequential(nn.Linear(12, 24), nn.Dropout(0.3), nn.Linear(24, 3))

    def fn(x):
        model.zero_grad(set_to_none=True)
        loss = model(x).square().mean()
        loss.backward()
        return loss.detach(), model[0].weight.grad.clone()
    return fn, (randn(6, 12),)


@program("cpu_func_grad")
def cpu_func_grad():
    # torch.func.grad inside the compiled function: the backward is part of
    # one inference graph.
    def loss(w, x):
        return (x @ w).tanh().sum()

    def fn(w, x):
        g = torch.func.grad(loss)(w, x)
        return w - 0.1 * g, g.norm()
    return fn, (randn(5, 3), randn(4, 5))


@program("cpu_vmap")
def cpu_vmap():
    # torch.vmap over a function with a reduction and an indexing op.
    def one(row, idx):
        return row.softmax(0)[idx] * row.max()

    def fn(x, idx):
        return torch.vmap(one)(x, idx)
    return fn, (randn(6, 10), torch.randint(0, 10, (6, 3)))


@program("cpu_gemm_template", mode="max-autotune-no-cudagraphs")
def cpu_gemm_template():
    # max-autotune on the CPU: Inductor's C++ GEMM template with a fused
    # epilogue among the choices.
    model = nn.Sequential(nn.Linear(64, 48), nn.ReLU(), nn.Linear(48, 16)).eval()

    def fn(x):
        with torch.no_grad():
            return model(x).sigmoid()
    return fn, (randn(32, 64),)


@program("cpu_nan_inf_constants")
def cpu_nan_inf_constants():
    # Infinities and NaN as constants in kernels and as fill values.
    def fn(x):
        y = torch.where(x > 0, x, float("-inf"))
        z = torch.full_like(x, float("nan")).nan_to_num(posinf=1.0)
        return y.amax(1), y.logsumexp(1), z + x.clamp(min=float("-inf"), max=1.0)
    return fn, (randn(5, 7),)


def _config_program(**settings):
    """A small graph compiled with Inductor settings that change its
    wrapper: an extern mm between fused kernels, and a fallback."""
    import torch._inductor.config as config
    for key, value in settings.items():
        target = config
        *path, last = key.split(".")
        for part in path:
            target = getattr(target, part)
        setattr(target, last, value)

    def fn(x, w):
        h = (x.sin() * 2).relu()
        y = h @ w
        # A fallback (sort has no CPU lowering): an extern kernel that
        # allocates its outputs, after which Inductor writes hook calls.
        s, i = torch.sort(y, dim=1)
        return (y + h[:, :4].sum(1, keepdim=True)).tanh(), y.amax(0), s * 2, i
    return fn, (randn(8, 6), randn(6, 4))


@program("cpu_intermediate_hooks_declined", export_error="generate_intermediate_hooks is on")
def cpu_intermediate_hooks_declined():
    # generate_intermediate_hooks: the wrapper calls run_intermediate_hooks on
    # the results of extern kernels that allocate them (on the CPU; Triton
    # kernels' results too on the GPU), which the exported graph does not hold.
    return _config_program(generate_intermediate_hooks=True)


@program("cpu_profile_bandwidth_declined", export_error="profile_bandwidth is on")
def cpu_profile_bandwidth_declined():
    # profile_bandwidth: kernels timed and their bandwidth reported, by code
    # Inductor adds as it prints the wrapper.
    return _config_program(profile_bandwidth=True)


@program("cpu_no_buffer_reuse")
def cpu_no_buffer_reuse():
    # Inductor's own reuse and in-place buffers off.
    return _config_program(allow_buffer_reuse=False, inplace_buffers=False)


@program("cpu_kernel_profile")
def cpu_kernel_profile():
    # C++ kernels that record themselves to the profiler.
    return _config_program(**{"cpp.enable_kernel_profile": True})


@program("cpu_benchmark_kernel")
def cpu_benchmark_kernel():
    # benchmark_kernel: each kernel's module carries code to benchmark it alone.
    return _config_program(benchmark_kernel=True)


@program("cpu_aggressive_fusion")
def cpu_aggressive_fusion():
    return _config_program(aggressive_fusion=True, max_fusion_size=4)


@program("cpu_checkpoint_train", training=True)
def cpu_checkpoint_train():
    # Activation checkpointing: the backward recomputes the checkpointed
    # block instead of saving its activations.
    from torch.utils.checkpoint import checkpoint
    block = nn.Sequential(nn.Linear(16, 32), nn.GELU(), nn.Linear(32, 16))
    head = nn.Linear(16, 4)

    def fn(x):
        block.zero_grad(set_to_none=True)
        head.zero_grad(set_to_none=True)
        h = checkpoint(block, x, use_reentrant=False)
        loss = head(h + x).logsumexp(-1).mean()
        loss.backward()
        return loss.detach(), block[0].weight.grad.clone(), head.bias.grad.clone()
    return fn, (randn(5, 16),)


@program("cpu_bincount_histc", data_dependent=True)
def cpu_bincount_histc():
    # bincount (an output size read from the data) and histc (a fixed number
    # of bins), both fallbacks, between fused kernels.
    def fn(labels, x):
        counts = torch.bincount(labels)
        hist = torch.histc(x.tanh(), bins=8, min=-1, max=1)
        return counts * 2, hist / x.numel()
    return fn, (torch.tensor([0, 3, 3, 1, 5, 0, 3]), randn(6, 5))


@program("cpu_index_add_inplace")
def cpu_index_add_inplace():
    # In-place index_add_, scatter_add_ and index_copy_ on inputs, read after.
    def fn(acc, table, src, idx, dst):
        acc.index_add_(0, idx, src * 2)
        table.scatter_add_(1, idx.view(1, -1).expand(3, -1), src.t().contiguous())
        dst.index_copy_(0, idx[:2], src[:2])
        return acc.sum(1), table.amax(1), dst + 1
    idx = torch.tensor([2, 0, 4, 2])
    return fn, (randn(5, 3), randn(3, 6), randn(4, 3), idx, randn(5, 3))


@program("cpu_arange_full_dynamic", dynamic=True)
def cpu_arange_full_dynamic():
    # Tensors sized by a dynamic size: arange, full and a triangular mask.
    def fn(x):
        n = x.shape[0]
        pos = torch.arange(n, dtype=torch.float32)
        mask = torch.ones(n, n, dtype=torch.bool).tril()
        scores = (x @ x.t()).masked_fill(~mask, float("-inf")).softmax(-1)
        return scores @ x + pos[:, None], torch.full((n, 2), 0.5) * n
    return fn, (randn(7, 4),)


@program("cpu_einsum_cdist")
def cpu_einsum_cdist():
    # einsum (a batched matmul after permutes) and cdist.
    def fn(a, b, c):
        e = torch.einsum("bij,bjk->bik", a, b).relu()
        return e.sum(0), torch.cdist(c, c[:3])
    return fn, (randn(2, 4, 5), randn(2, 5, 3), randn(6, 4))


@program("cpu_randperm_multinomial", rng=True)
def cpu_randperm_multinomial():
    # Random fallbacks: a permutation and draws from a distribution.
    def fn(x, probs):
        perm = torch.randperm(x.shape[0])
        draws = torch.multinomial(probs.softmax(-1), 3, replacement=True)
        return perm * 2, draws, x.sum(0)
    return fn, (randn(6, 3), randn(4, 5))


@program("cpu_double_backward")
def cpu_double_backward():
    # A gradient penalty: the gradient of the squared norm of a gradient
    # (torch.func.grad of torch.func.grad), one inference graph.
    w = torch.randn(6, 6) * 0.3

    def f(x):
        return (x @ w).tanh().sum()

    def penalty(x):
        return torch.func.grad(f)(x).square().sum()

    def fn(x):
        return penalty(x), torch.func.grad(penalty)(x)
    return fn, (randn(3, 6),)


@program("cpu_as_strided_outputs")
def cpu_as_strided_outputs():
    # Outputs that are strided views of intermediates and of an input: a
    # diagonal, a transpose of a computed tensor and an overlapping window.
    def fn(x):
        y = x * 3
        return (y.diagonal(), y.t(), x.as_strided((3, 4), (2, 1), 1),
                y.unfold(1, 2, 2))
    return fn, (randn(6, 6),)


@program("cpu_item_float", data_dependent=True)
def cpu_item_float():
    # Data-dependent floats (.item() of float tensors, unbacked `zuf0`):
    # returned, divided by, and passed to an extern kernel (clamp's bound).
    def fn(x, y):
        m = x.abs().max().item()
        lo = y.min().item()
        return x / m, m, torch.clamp(y @ y.t(), min=lo), lo * 2.0
    return fn, (randn(6, 5), randn(4, 3))


@program("cpu_item_float_fused", data_dependent=True)
def cpu_item_float_fused():
    # Arithmetic on a data-dependent float, which Inductor fuses into the
    # kernel that takes the float: a scale, a fill value and a clamp bound.
    def fn(x):
        m = x.abs().max().item()
        return x * (m * 2 + 1), torch.full((3,), m), x.clamp(max=m / 2)
    return fn, (randn(6, 5),)


@program("cpu_item_float_extern", data_dependent=True)
def cpu_item_float_extern():
    # A data-dependent float as an extern kernel's keyword (addmm's alpha)
    # and a fused kernel's argument (leaky_relu's slope).
    def fn(x, w):
        s = x.std().item()
        return torch.addmm(x, w, w.t(), alpha=s), torch.nn.functional.leaky_relu(x, s)
    return fn, (randn(4, 4), randn(4, 4))



@program("cpu_cond_joined_sizes", dynamic=True)
def cpu_cond_joined_sizes():
    # torch.cond on comparisons of sizes joined by & and by | (SymBools).
    def fn(x):
        wide = torch.cond((x.shape[0] > 4) & (x.shape[1] < 8), lambda t: t * 2,
                          lambda t: t - 2, (x,))
        return torch.cond((x.shape[0] < 3) | (x.shape[1] > 2), lambda t: t.sin(),
                          lambda t: t.cos(), (wide,))
    return fn, (randn(7, 3),)


@program("cpu_embedding_max_norm")
def cpu_embedding_max_norm():
    # F.embedding with max_norm renormalizes the rows it reads in place: an
    # input (the weight) mutated by a fallback (embedding_renorm_).
    def fn(idx, weight):
        return F.embedding(idx, weight, max_norm=1.0) * 2, weight.sum(1)
    return fn, (torch.tensor([[0, 2, 4], [4, 3, 1]]), randn(6, 5) * 3)


@program("cpu_unique_consecutive_counts", data_dependent=True)
def cpu_unique_consecutive_counts():
    # unique_consecutive with inverse and counts: three outputs, two of them
    # sized by the data.
    def fn(x):
        values, inverse, counts = torch.unique_consecutive(x, return_inverse=True,
                                                            return_counts=True)
        return values * 2, inverse, counts.float().mean()
    return fn, (torch.tensor([1, 1, 2, 2, 2, 3, 1, 1, 5]),)


@program("cpu_histogram_antialias")
def cpu_histogram_antialias():
    # torch.histogram (counts and bin edges) and an antialiased resize, both
    # fallbacks.
    def fn(x, img):
        hist, edges = torch.histogram(x, bins=5, range=(-2.0, 2.0))
        small = F.interpolate(img, size=(3, 3), mode="bilinear", antialias=True)
        return hist * 1, edges + 0, small
    return fn, (randn(40), randn(1, 2, 8, 8))
