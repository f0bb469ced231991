"""Programs kept out of wirc's corpus, to check that the exporter and wirc
are general rather than fitted to the corpus.

None of these graphs is committed or used to tune wirc: they are run only by
`validate.py --programs heldout` on a GPU machine, and what they find is fixed
in general, with a test of its own. They are the kind of program users bring:
common model blocks, training steps with optimizers and batch statistics,
mixed precision, random numbers, autotuned matmul templates and CUDA graphs.

Entries take the options of corpus.py's (corpus.registry).
"""

import torch
import torch.nn as nn
import torch.nn.functional as F

from corpus import CUDA, randn, registry

PROGRAMS = {}
program = registry(PROGRAMS)


@program("resnet_block")
def resnet_block():
    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(16, 16, 3, padding=1, bias=False)
            self.bn1 = nn.BatchNorm2d(16)
            self.conv2 = nn.Conv2d(16, 16, 3, padding=1, bias=False)
            self.bn2 = nn.BatchNorm2d(16)
            self.fc = nn.Linear(16, 10)

        def forward(self, x):
            y = F.relu(self.bn1(self.conv1(x)))
            y = F.relu(self.bn2(self.conv2(y)) + x)
            return self.fc(torch.flatten(F.adaptive_avg_pool2d(y, 1), 1))
    model = Block().to(CUDA).eval()
    return model, (randn(2, 16, 12, 12),)


@program("cnn_training", training=True)
def cnn_training():
    # Batch statistics in training mode: the running mean and variance are
    # buffers the graph mutates.
    model = nn.Sequential(nn.Conv2d(3, 8, 3), nn.BatchNorm2d(8), nn.ReLU(),
                          nn.MaxPool2d(2), nn.Flatten(), nn.Linear(8 * 7 * 7, 5)).to(CUDA)
    model.train()

    def fn(x, labels):
        # Every call starts from the same statistics (eager and compiled
        # runs share the module).
        model[1].reset_running_stats()
        model.zero_grad(set_to_none=True)
        loss = F.cross_entropy(model(x), labels)
        loss.backward()
        return loss.detach(), model[0].weight.grad.clone(), model[1].running_mean.clone()
    return fn, (randn(4, 3, 16, 16), torch.randint(0, 5, (4,), device=CUDA))


@program("gpt_block")
def gpt_block():
    class Block(nn.Module):
        def __init__(self, dim=64, heads=4):
            super().__init__()
            self.heads = heads
            self.ln1 = nn.LayerNorm(dim)
            self.qkv = nn.Linear(dim, 3 * dim)
            self.proj = nn.Linear(dim, dim)
            self.ln2 = nn.LayerNorm(dim)
            self.mlp = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(approximate="tanh"),
                                     nn.Linear(4 * dim, dim))

        def forward(self, x):
            b, t, c = x.shape
            q, k, v = self.qkv(self.ln1(x)).split(c, dim=2)
            q, k, v = (z.view(b, t, self.heads, c // self.heads).transpose(1, 2)
                       for z in (q, k, v))
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            x = x + self.proj(y.transpose(1, 2).contiguous().view(b, t, c))
            return x + self.mlp(self.ln2(x))
    model = Block().to(CUDA).eval()
    return model, (randn(2, 32, 64),)


@program("dropout_train", rng=True)
def dropout_train():
    def fn(x):
        return F.dropout(torch.tanh(x) * 2, p=0.25, training=True).sum(0)
    return fn, (randn(64, 128),)


@program("embedding_ce", training=True)
def embedding_ce():
    emb = nn.Embedding(100, 32).to(CUDA)
    head = nn.Linear(32, 100).to(CUDA)

    def fn(tokens, targets):
        emb.zero_grad(set_to_none=True)
        head.zero_grad(set_to_none=True)
        loss = F.cross_entropy(head(emb(tokens)).flatten(0, 1), targets.flatten())
        loss.backward()
        return loss.detach(), emb.weight.grad.clone()
    return fn, (torch.randint(0, 100, (4, 12), device=CUDA),
                torch.randint(0, 100, (4, 12), device=CUDA))


@program("autocast_bf16")
def autocast_bf16():
    model = nn.Sequential(nn.Linear(64, 256), nn.GELU(), nn.Linear(256, 64)).to(CUDA)

    def fn(x):
        with torch.autocast("cuda", dtype=torch.bfloat16):
            y = model(x)
        return y.float().softmax(-1)
    return fn, (randn(32, 64),)


@program("group_norm_silu")
def group_norm_silu():
    model = nn.Sequential(nn.GroupNorm(4, 16), nn.SiLU(), nn.Conv2d(16, 16, 1)).to(CUDA).eval()
    return model, (randn(2, 16, 8, 8),)


@program("upsample_pool")
def upsample_pool():
    def fn(x):
        y = F.interpolate(x, scale_factor=2, mode="bilinear", align_corners=False)
        return F.max_pool2d(y, 3, stride=2, padding=1) + F.avg_pool2d(y, 2)
    return fn, (randn(2, 4, 9, 9),)


@program("sort_gather")
def sort_gather():
    def fn(x, y):
        order = torch.argsort(x, dim=-1, descending=True)
        picked = torch.gather(y, -1, order)
        masked = picked.masked_fill(picked < 0, float("-inf"))
        return torch.softmax(masked.cumsum(-1).clamp(max=50.0), -1), order[:, :3]
    return fn, (randn(6, 40), randn(6, 40).abs() + 0.1)


@program("inplace_views")
def inplace_views():
    def fn(x, idx, src):
        x[:, :2].mul_(2)
        x.index_add_(0, idx, src)
        x.t()[1].clamp_(min=-0.5)
        return x.sum(1)
    return fn, (randn(10, 6), torch.tensor([1, 3, 3, 7], device=CUDA), randn(4, 6))


@program("dynamic_attention", dynamic=True)
def dynamic_attention():
    def fn(q, k, v, bias):
        scores = (q @ k.transpose(-1, -2)) * 0.125 + bias
        return torch.softmax(scores, -1) @ v + F.scaled_dot_product_attention(q, k, v)
    return fn, (randn(2, 4, 24, 16), randn(2, 4, 24, 16), randn(2, 4, 24, 16), randn(24, 24))


@program("reductions_where")
def reductions_where():
    def fn(x, y):
        z = torch.where(x > 0, x, y * 0.5)
        values, indices = torch.max(z, dim=1)
        return torch.logsumexp(z, -1) + values, indices, z.abs().amin(0), torch.var_mean(z, 1)[0]
    return fn, (randn(16, 33), randn(16, 33))


@program("autotuned_mm", mode="max-autotune-no-cudagraphs")
def autotuned_mm():
    def fn(x, w, b):
        return torch.relu(x @ w + b) * 2
    return fn, (randn(64, 128), randn(128, 96), randn(96))


@program("cudagraphs_mlp", mode="reduce-overhead")
def cudagraphs_mlp():
    model = nn.Sequential(nn.Linear(32, 64), nn.SiLU(), nn.Linear(64, 8)).to(CUDA).eval()

    def fn(x):
        with torch.no_grad():
            return model(x).clone()
    return fn, (randn(16, 32),)


@program("foreach_adam")
def foreach_adam():
    # The update an optimizer's step makes, over lists of parameters: the
    # foreach kernels Inductor generates for compiled optimizers.
    def fn(params, grads, exp_avg, exp_avg_sq):
        torch._foreach_mul_(exp_avg, 0.9)
        torch._foreach_add_(exp_avg, grads, alpha=0.1)
        torch._foreach_mul_(exp_avg_sq, 0.999)
        torch._foreach_addcmul_(exp_avg_sq, grads, grads, value=0.001)
        denom = torch._foreach_add(torch._foreach_sqrt(exp_avg_sq), 1e-8)
        torch._foreach_addcdiv_(params, exp_avg, denom, value=-0.01)
        return [p.sum() for p in params]
    shapes = [(16, 8), (8,), (8, 4), (4,)]
    return fn, ([randn(*s) for s in shapes], [randn(*s) for s in shapes],
                [torch.zeros(*s, device=CUDA) for s in shapes],
                [torch.zeros(*s, device=CUDA) for s in shapes])


@program("multihead_attention")
def multihead_attention():
    mha = nn.MultiheadAttention(64, 4, batch_first=True).to(CUDA).eval()

    def fn(x, key_padding_mask):
        with torch.no_grad():
            return mha(x, x, x, key_padding_mask=key_padding_mask, need_weights=False)[0]
    mask = torch.zeros(2, 10, dtype=torch.bool, device=CUDA)
    mask[1, 7:] = True
    return fn, (randn(2, 10, 64), mask)


@program("gru_unrolled")
def gru_unrolled():
    cell = nn.GRUCell(16, 32).to(CUDA)

    def fn(xs, h):
        with torch.no_grad():
            for t in range(xs.shape[0]):
                h = cell(xs[t], h)
        return h
    return fn, (randn(6, 4, 16), randn(4, 32))


@program("dynamic_layernorm_mlp", dynamic=True)
def dynamic_layernorm_mlp():
    model = nn.Sequential(nn.LayerNorm(48), nn.Linear(48, 96), nn.ReLU(),
                          nn.Linear(96, 48)).to(CUDA).eval()

    def fn(x):
        with torch.no_grad():
            return model(x).softmax(-1)
    return fn, (randn(3, 19, 48),)


@program("dynamic_foreach", dynamic=True)
def dynamic_foreach():
    def fn(xs, ys):
        torch._foreach_add_(xs, ys, alpha=0.5)
        return torch._foreach_mul(xs, 2.0)
    return fn, ([randn(13), randn(7, 5)], [randn(13), randn(7, 5)])


@program("conv_transpose_shuffle")
def conv_transpose_shuffle():
    model = nn.Sequential(nn.ConvTranspose2d(8, 16, 2, stride=2), nn.PixelShuffle(2),
                          nn.Hardswish()).to(CUDA).eval()
    return model, (randn(2, 8, 5, 5),)


@program("masked_mean")
def masked_mean():
    def fn(x, mask):
        total = x.masked_fill(~mask.unsqueeze(-1), 0.0).sum(1)
        return total / mask.sum(1, keepdim=True).clamp(min=1)
    mask = torch.rand(4, 9, device=CUDA) > 0.3
    return fn, (randn(4, 9, 16), mask)


@program("scatter_add_select")
def scatter_add_select():
    def fn(src, idx, table):
        out = torch.zeros(10, src.shape[1], device=src.device).scatter_add_(
            0, idx.unsqueeze(1).expand(-1, src.shape[1]), src)
        return out + torch.index_select(table, 0, idx % 5).sum()
    return fn, (randn(12, 6), torch.randint(0, 10, (12,), device=CUDA), randn(5, 3))


@program("long_row_softmax")
def long_row_softmax():
    def fn(x):
        return torch.softmax(x, -1) * x.amax(-1, keepdim=True)
    return fn, (randn(3, 10000),)


@program("permute_tiled")
def permute_tiled():
    def fn(x):
        return x.permute(0, 2, 1).contiguous() + 1, x.transpose(1, 2).sum(0)
    return fn, (randn(4, 65, 130),)


@program("int_arith")
def int_arith():
    def fn(a, b):
        return (a // 3) ^ (b & 7), torch.remainder(a, 5) == b % 5, (a * b).max()
    return fn, (torch.randint(-50, 50, (64,), device=CUDA),
                torch.randint(1, 50, (64,), device=CUDA))


@program("output_views")
def output_views():
    def fn(x):
        y = x * 2
        return x[1:], y.view(4, -1), x.as_strided((3, 2), (2, 1), 2), y
    return fn, (randn(4, 6),)


@program("layernorm_training", training=True)
def layernorm_training():
    norm = nn.LayerNorm(40).to(CUDA)

    def fn(x):
        norm.zero_grad(set_to_none=True)
        out = norm(x)
        (out * out).mean().backward()
        return out.detach(), norm.weight.grad.clone(), norm.bias.grad.clone()
    return fn, (randn(6, 40),)


@program("cumprod_flip_roll")
def cumprod_flip_roll():
    def fn(x):
        return torch.cumprod(x.flip(-1) * 0.5 + 1, -1), torch.roll(x, 3, 1)
    return fn, (randn(5, 33),)


@program("broadcast_matmul")
def broadcast_matmul():
    def fn(a, b):
        return torch.matmul(a, b).relu()
    return fn, (randn(2, 3, 8, 16), randn(3, 16, 4))


@program("half_model")
def half_model():
    model = nn.Sequential(nn.Linear(32, 32), nn.Tanh(), nn.Linear(32, 8)).to(CUDA).half().eval()

    def fn(x):
        with torch.no_grad():
            return model(x)
    return fn, (randn(16, 32).half(),)


@program("closure_constants")
def closure_constants():
    scale = torch.linspace(0.5, 2.0, 24, device=CUDA)
    table = torch.arange(24, device=CUDA).float()

    def fn(x):
        return torch.where(x > 0, x * scale, table) + torch.tensor(3.0, device=CUDA)
    return fn, (randn(5, 24),)


@program("split_stack_cat")
def split_stack_cat():
    def fn(x):
        parts = torch.split(x, [3, 5, 2], dim=1)
        a, b = torch.chunk(x, 2, dim=0)
        return torch.stack([p.sum(1) for p in parts]), torch.cat([b, a * 2], 1), parts[1]
    return fn, (randn(6, 10),)


@program("graph_breaks_print")
def graph_breaks_print():
    def fn(x, y):
        z = x @ y
        print("step")
        z = torch.relu(z) + x.sum()
        if z.sum() > 0:
            return z * 2
        return z - 1
    return fn, (randn(8, 8), randn(8, 8))


@program("sdpa_training", training=True)
def sdpa_training():
    proj = nn.Linear(32, 96).to(CUDA)

    def fn(x, mask):
        proj.zero_grad(set_to_none=True)
        q, k, v = proj(x).view(2, 12, 3, 4, 8).permute(2, 0, 3, 1, 4)
        out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
        out.square().mean().backward()
        return out.detach(), proj.weight.grad.clone()
    mask = torch.ones(12, 12, dtype=torch.bool, device=CUDA).tril()
    return fn, (randn(2, 12, 32), mask)


@program("fft_magnitude")
def fft_magnitude():
    def fn(x):
        spectrum = torch.fft.rfft(x, dim=-1)
        return spectrum.abs().log1p(), torch.fft.irfft(spectrum * 0.5, n=x.shape[-1])
    return fn, (randn(4, 64),)


@program("embedding_bag")
def embedding_bag():
    bag = nn.EmbeddingBag(50, 16, mode="mean").to(CUDA)

    def fn(idx, offsets):
        with torch.no_grad():
            return bag(idx, offsets) * 2
    return fn, (torch.randint(0, 50, (20,), device=CUDA),
                torch.tensor([0, 3, 9, 15], device=CUDA))


@program("bucketize_histogram")
def bucketize_histogram():
    def fn(x, edges):
        buckets = torch.bucketize(x, edges)
        return buckets, torch.searchsorted(edges, x.sort().values), (buckets * 2 + 1).sum()
    return fn, (randn(100), torch.linspace(-2, 2, 9, device=CUDA))


@program("einsum_normalize")
def einsum_normalize():
    def fn(a, b):
        scores = torch.einsum("bik,bjk->bij", F.normalize(a, dim=-1), F.normalize(b, dim=-1))
        return scores, torch.linalg.vector_norm(a, dim=(1, 2))
    return fn, (randn(3, 10, 16), randn(3, 7, 16))


@program("pad_reflect")
def pad_reflect():
    def fn(x):
        return F.pad(x, (2, 3, 1, 1), mode="reflect") * F.pad(x, (2, 3, 1, 1), value=1.5)
    return fn, (randn(2, 3, 8, 8),)


@program("split_reduction")
def split_reduction():
    def fn(x):
        return x.sum(), x.abs().amax(), (x * x).mean()
    return fn, (randn(1 << 20),)


@program("conv3d_depthwise")
def conv3d_depthwise():
    model = nn.Sequential(nn.Conv3d(4, 8, 3, padding=1), nn.GELU()).to(CUDA).eval()
    depthwise = nn.Conv2d(6, 6, 3, groups=6, padding=1).to(CUDA).eval()

    def fn(x, y):
        with torch.no_grad():
            return model(x).mean((2, 3, 4)), depthwise(y).relu()
    return fn, (randn(2, 4, 5, 6, 6), randn(2, 6, 10, 10))


@program("int_matmul")
def int_matmul():
    def fn(a, b):
        return torch._int_mm(a, b) * 2
    return fn, (torch.randint(-8, 8, (32, 32), device=CUDA, dtype=torch.int8),
                torch.randint(-8, 8, (32, 32), device=CUDA, dtype=torch.int8))


@program("index_put_mask")
def index_put_mask():
    def fn(x, rows, values):
        y = x.clone()
        y[rows] = values
        y[:, 0] = y[:, 1] * 2
        return y
    return fn, (randn(8, 5), torch.tensor([1, 4, 6], device=CUDA), randn(3, 5))


@program("random_inside", rng=True)
def random_inside():
    def fn(x):
        noise = torch.randn_like(x) * 0.1 + torch.rand(x.shape[-1], device=x.device)
        return x + noise, torch.randint(0, 10, (4,), device=x.device)
    return fn, (randn(6, 16),)


@program("embedding_max_norm")
def embedding_max_norm():
    emb = nn.Embedding(30, 8, max_norm=1.0).to(CUDA)

    def fn(idx):
        with torch.no_grad():
            return emb(idx).sum(1)
    return fn, (torch.randint(0, 30, (4, 5), device=CUDA),)


@program("nearest_upsample")
def nearest_upsample():
    model = nn.Sequential(nn.Upsample(scale_factor=3, mode="nearest"), nn.Conv2d(2, 2, 1),
                          nn.AdaptiveMaxPool2d((4, 4))).to(CUDA).eval()
    return model, (randn(1, 2, 5, 7),)


@program("label_smoothing_ce", training=True)
def label_smoothing_ce():
    head = nn.Linear(24, 11).to(CUDA)

    def fn(x, target):
        head.zero_grad(set_to_none=True)
        loss = F.cross_entropy(head(x), target, label_smoothing=0.1, ignore_index=3)
        loss.backward()
        return loss.detach(), head.bias.grad.clone()
    return fn, (randn(9, 24), torch.randint(0, 11, (9,), device=CUDA))


@program("argsort_stable")
def argsort_stable():
    def fn(x):
        order = torch.argsort(x, dim=0, stable=True)
        return order, torch.take_along_dim(x, order, dim=0).cumsum(0)
    return fn, (torch.randint(0, 5, (40, 3), device=CUDA).float(),)


@program("while_loop_never_runs")
def while_loop_never_runs():
    from torch._higher_order_ops.while_loop import while_loop as loop

    def fn(i, x):
        # The predicate is false at once: the results are copies of the inputs.
        n, out = loop(lambda i, t: i < 0, lambda i, t: (i + 1, t.cos()), (i, x))
        x.add_(1)  # the results must not alias x
        return n, out
    return fn, (torch.tensor(3, device=CUDA), randn(5, 7))


@program("while_loop_two_states")
def while_loop_two_states():
    from torch._higher_order_ops.while_loop import while_loop as loop

    def fn(i, h, acc, w):
        def body(i, h, acc):
            h = torch.tanh(h @ w)
            return i + 1, h, acc + h.sum(0)
        return loop(lambda i, h, acc: i < 4, body, (i, h, acc))
    return fn, (torch.tensor(0, device=CUDA), randn(6, 12), torch.zeros(12, device=CUDA),
                randn(12, 12) * 0.3)


@program("nested_region_training", training=True)
def nested_region_training():
    lin1, lin2 = nn.Linear(20, 20).to(CUDA), nn.Linear(20, 20).to(CUDA)

    @torch.compiler.nested_compile_region
    def block(x, w, b):
        return F.gelu(F.linear(x, w, b)) + x

    def fn(x):
        lin1.zero_grad(set_to_none=True)
        lin2.zero_grad(set_to_none=True)
        y = block(block(x, lin1.weight, lin1.bias), lin2.weight, lin2.bias)
        y.square().mean().backward()
        return y.detach(), lin1.weight.grad.clone(), lin2.bias.grad.clone()
    return fn, (randn(10, 20),)


@program("unique_plus_one", data_dependent=True)
def unique_plus_one():
    def fn(x):
        return torch.unique(x) + 1
    return fn, (torch.randint(0, 5, (20,), device=CUDA),)


@program("repeat_interleave_counts", data_dependent=True)
def repeat_interleave_counts():
    def fn(x, r):
        return torch.repeat_interleave(x, r) * 3
    return fn, (randn(5), torch.tensor([1, 2, 0, 3, 1], device=CUDA))


@program("tolist_slice", data_dependent=True)
def tolist_slice():
    def fn(x, idx):
        a, b = idx.tolist()
        torch._check(0 <= a)
        torch._check(a <= b)
        torch._check(b <= x.shape[0])
        return x[a:b].cos()
    return fn, (randn(32), torch.tensor([3, 11], device=CUDA))


@program("nonzero_gather", data_dependent=True)
def nonzero_gather():
    def fn(x, w):
        idx = torch.nonzero(x.abs() > 1).squeeze(1)
        return (x[idx] * w[idx]).sum() + idx.numel()
    return fn, (randn(64), randn(64))


@program("masked_fill_count", data_dependent=True)
def masked_fill_count():
    def fn(x):
        n = (x > 0).sum().item()
        torch._check(n >= 0)
        return torch.ones(n, device=x.device) * 2, x.relu()
    return fn, (randn(40),)


@program("argwhere_rows", data_dependent=True)
def argwhere_rows():
    def fn(x):
        rows = torch.argwhere(x.sum(1) > 0).squeeze(1)
        return x[rows].softmax(-1)
    return fn, (randn(16, 8),)


@program("bincount_norm", data_dependent=True)
def bincount_norm():
    def fn(idx, w):
        counts = torch.bincount(idx, minlength=4)
        return counts.float() / counts.sum() + w.mean()
    return fn, (torch.randint(0, 6, (50,), device=CUDA), randn(8))


@program("masked_select_grad", data_dependent=True, training=True)
def masked_select_grad():
    lin = nn.Linear(8, 8).to(CUDA)

    def fn(x):
        lin.zero_grad(set_to_none=True)
        h = lin(x)
        loss = h[h > 0].pow(2).sum()
        loss.backward()
        return loss.detach(), lin.weight.grad.clone()
    return fn, (randn(4, 8),)


# Custom operators (torch.library.custom_op) reach Inductor as fallback
# kernels of a namespace of their own: one functional, one that mutates its
# argument in place (auto_functionalized, re-inplaced by Inductor), one with
# two results.
@torch.library.custom_op("wirc_heldout::scaled_tanh", mutates_args=())
def _scaled_tanh(x: torch.Tensor, scale: float) -> torch.Tensor:
    return torch.tanh(x) * scale


@_scaled_tanh.register_fake
def _(x, scale):
    return torch.empty_like(x)


@torch.library.custom_op("wirc_heldout::accumulate", mutates_args=("acc",))
def _accumulate(acc: torch.Tensor, x: torch.Tensor) -> None:
    acc.add_(x)


@torch.library.custom_op("wirc_heldout::split_sign", mutates_args=())
def _split_sign(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    return x.clamp(min=0), x.clamp(max=0)


@_split_sign.register_fake
def _(x):
    return torch.empty_like(x), torch.empty_like(x)


@program("custom_op_chain")
def custom_op_chain():
    def fn(x, acc):
        y = torch.ops.wirc_heldout.scaled_tanh(x * 2 + 1, 0.5)
        pos, neg = torch.ops.wirc_heldout.split_sign(y - 0.1)
        torch.ops.wirc_heldout.accumulate(acc, pos.exp())
        return pos + neg.abs(), acc * 3
    return fn, (randn(8, 16), randn(8, 16))


@program("flex_attention_score_mod")
def flex_attention_score_mod():
    from torch.nn.attention.flex_attention import flex_attention

    def relative(score, b, h, q_idx, kv_idx):
        return score + (q_idx - kv_idx) * 0.01

    def fn(q, k, v):
        return flex_attention(q, k, v, score_mod=relative)
    return fn, (randn(2, 4, 256, 64), randn(2, 4, 256, 64), randn(2, 4, 256, 64))


@program("flex_attention_causal")
def flex_attention_causal():
    from torch.nn.attention.flex_attention import create_block_mask, flex_attention

    def causal(b, h, q_idx, kv_idx):
        return q_idx >= kv_idx
    mask = create_block_mask(causal, B=None, H=None, Q_LEN=256, KV_LEN=256, device=CUDA)

    def fn(q, k, v):
        return flex_attention(q, k, v, block_mask=mask).sum(1)
    return fn, (randn(1, 2, 256, 64, dtype=torch.float16),
                randn(1, 2, 256, 64, dtype=torch.float16),
                randn(1, 2, 256, 64, dtype=torch.float16))


@program("rope_complex")
def rope_complex():
    angles = torch.outer(torch.arange(16, device=CUDA, dtype=torch.float32),
                         torch.linspace(0.1, 1.0, 8, device=CUDA))
    freqs = torch.polar(torch.ones_like(angles), angles)

    def fn(x):
        xc = torch.view_as_complex(x.reshape(*x.shape[:-1], -1, 2))
        return torch.view_as_real(xc * freqs[None, :, None, :]).flatten(3) * 1.5
    return fn, (randn(2, 16, 4, 16),)


@program("channels_last_conv")
def channels_last_conv():
    conv = nn.Conv2d(8, 16, 3, padding=1).to(CUDA).to(memory_format=torch.channels_last)

    def fn(x):
        return F.relu(conv(x)) * 2 + x.mean()
    return fn, (randn(4, 8, 16, 16).to(memory_format=torch.channels_last),)


@program("fp8_scaled_mm")
def fp8_scaled_mm():
    def fn(a, b, scale_a, scale_b):
        y = torch._scaled_mm(a, b, scale_a=scale_a, scale_b=scale_b, out_dtype=torch.bfloat16)
        return F.relu(y) + 1
    a = randn(32, 64).to(torch.float8_e4m3fn)
    b = randn(32, 64).to(torch.float8_e4m3fn).t()
    return fn, (a, b, torch.tensor(0.5, device=CUDA), torch.tensor(2.0, device=CUDA))


@program("int8_mm")
def int8_mm():
    def fn(a, b, scale):
        return torch._int_mm(a, b).float() * scale + 1
    a = torch.randint(-8, 8, (32, 64), device=CUDA, dtype=torch.int8)
    b = torch.randint(-8, 8, (64, 32), device=CUDA, dtype=torch.int8)
    return fn, (a, b, randn(32))


@program("checkpoint_training", training=True)
def checkpoint_training():
    from torch.utils.checkpoint import checkpoint
    lin1 = nn.Linear(16, 32).to(CUDA)
    lin2 = nn.Linear(32, 16).to(CUDA)

    def block(t):
        return lin2(F.gelu(lin1(t)))

    def fn(x):
        lin1.zero_grad(set_to_none=True)
        lin2.zero_grad(set_to_none=True)
        y = checkpoint(block, x, use_reentrant=False)
        y.square().mean().backward()
        return y.detach(), lin1.weight.grad.clone(), lin2.bias.grad.clone()
    return fn, (randn(8, 16),)


@program("dynamic_training", dynamic=True, training=True)
def dynamic_training():
    lin = nn.Linear(16, 16).to(CUDA)
    norm = nn.LayerNorm(16).to(CUDA)

    def fn(x):
        lin.zero_grad(set_to_none=True)
        norm.zero_grad(set_to_none=True)
        y = norm(F.silu(lin(x)))
        y.sum().backward()
        return y.detach(), lin.weight.grad.clone(), norm.bias.grad.clone()
    return fn, (randn(12, 16),)


@program("sdpa_dropout_training", training=True, rng=True)
def sdpa_dropout_training():
    proj = nn.Linear(32, 96).to(CUDA)

    def fn(x):
        proj.zero_grad(set_to_none=True)
        q, k, v = proj(x).view(2, 64, 3, 2, 16).permute(2, 0, 3, 1, 4)
        y = F.scaled_dot_product_attention(q, k, v, dropout_p=0.1)
        y.sum().backward()
        return y.detach(), proj.weight.grad.clone()
    return fn, (randn(2, 64, 32),)


@program("cpu_scalar_input")
def cpu_scalar_input():
    def fn(x, t):
        return (x * t + t).sigmoid()
    return fn, (randn(64), torch.tensor(2.5))


@program("linalg_solve")
def linalg_solve():
    # Fallbacks with several results, some of them int32 (pivots, infos).
    def fn(a, b):
        spd = a @ a.mT + torch.eye(16, device=a.device) * 16
        x = torch.linalg.solve(spd, b)
        chol = torch.linalg.cholesky(spd)
        return x * 2, chol.sum(-1)
    return fn, (randn(4, 16, 16), randn(4, 16, 3))


@program("median_kthvalue_mode")
def median_kthvalue_mode():
    # Value-and-index fallbacks; the index outputs are int64.
    def fn(x):
        med, med_idx = torch.median(x, dim=1)
        kth, kth_idx = torch.kthvalue(x, 3, dim=1)
        mode, _ = torch.mode((x * 2).round(), dim=1)
        return med + kth, med_idx, kth_idx, mode
    return fn, (randn(6, 33),)


@program("moe_routing")
def moe_routing():
    # Mixture-of-experts routing: top-k gates, a gather of expert weights by
    # index, batched matmuls and index_add_ into a fresh output.
    gate = nn.Linear(32, 4).to(CUDA)
    experts = torch.randn(4, 32, 32, device=CUDA) * 0.1

    def fn(x):
        weights, idx = gate(x).softmax(-1).topk(2, dim=-1)
        weights = weights / weights.sum(-1, keepdim=True)
        out = torch.zeros_like(x)
        rows = torch.arange(x.shape[0], device=x.device)
        for j in range(2):
            h = torch.bmm(x.unsqueeze(1), experts[idx[:, j]]).squeeze(1)
            out.index_add_(0, rows, h * weights[:, j:j + 1])
        return out
    return fn, (randn(16, 32),)


@program("float_argument", dynamic=True)
def float_argument():
    # A Python float argument of a dynamic graph.
    def fn(x, alpha):
        return (x * alpha).tanh() + alpha
    return fn, (randn(32), 0.75)


@program("mixed_device")
def mixed_device():
    # A CUDA graph that copies a CPU input to the GPU and returns a result
    # on the CPU.
    def fn(x, bias):
        y = x + bias.to(x.device)
        return y.sum(0).cpu(), y * 2
    return fn, (randn(8, 4), torch.arange(4, dtype=torch.float32))


@program("user_kernel_autotune")
def user_kernel_autotune():
    # A user-written Triton kernel with autotuned configs and float scalar
    # arguments, one of them -inf.
    import triton
    import triton.language as tl

    @triton.autotune(configs=[triton.Config({"BLOCK": 64}, num_warps=2),
                              triton.Config({"BLOCK": 128}, num_warps=4)], key=["n"])
    @triton.jit
    def clamp_kernel(x_ptr, out_ptr, n, lo, hi, BLOCK: tl.constexpr):
        offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offsets < n
        x = tl.load(x_ptr + offsets, mask)
        tl.store(out_ptr + offsets, tl.minimum(tl.maximum(x, lo), hi), mask)

    def fn(x):
        out = torch.empty_like(x)
        clamp_kernel[lambda meta: (triton.cdiv(x.numel(), meta["BLOCK"]),)](
            x, out, x.numel(), float("-inf"), 0.5)
        return out * 3
    return fn, (randn(1000),)


@program("sdpa_gqa_causal")
def sdpa_gqa_causal():
    # Grouped-query attention: fewer key and value heads than query heads.
    def fn(q, k, v):
        return F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True) * 2
    return fn, (randn(2, 8, 64, 32, dtype=torch.float16),
                randn(2, 2, 64, 32, dtype=torch.float16),
                randn(2, 2, 64, 32, dtype=torch.float16))


@program("embedding_padding_training", training=True)
def embedding_padding_training():
    emb = nn.Embedding(50, 16, padding_idx=0).to(CUDA)
    lin = nn.Linear(16, 4).to(CUDA)

    def fn(idx):
        emb.zero_grad(set_to_none=True)
        lin.zero_grad(set_to_none=True)
        loss = lin(emb(idx)).relu().sum()
        loss.backward()
        return loss.detach(), emb.weight.grad.clone()
    return fn, (torch.randint(0, 50, (8, 12), device=CUDA),)


@program("grid_sample_training", training=True)
def grid_sample_training():
    # The grid is not trained: the backward's fallback returns one gradient
    # of two.
    conv = nn.Conv2d(3, 4, 1).to(CUDA)
    theta = torch.tensor([[[1.0, 0.1, 0.0], [0.1, 1.0, 0.0]]] * 2, device=CUDA)

    def fn(img):
        conv.zero_grad(set_to_none=True)
        grid = F.affine_grid(theta, [2, 4, 8, 8], align_corners=False)
        out = F.grid_sample(conv(img), grid, align_corners=False)
        out.square().mean().backward()
        return out.detach(), conv.weight.grad.clone()
    return fn, (randn(2, 3, 8, 8),)


class _Square(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return 2 * x * grad


@program("custom_function_training", training=True)
def custom_function_training():
    lin = nn.Linear(8, 8).to(CUDA)

    def fn(x):
        lin.zero_grad(set_to_none=True)
        loss = _Square.apply(lin(x)).sum()
        loss.backward()
        return loss.detach(), lin.weight.grad.clone()
    return fn, (randn(4, 8),)


@program("bool_int_outputs")
def bool_int_outputs():
    # Outputs of every kind but floating point.
    def fn(x):
        return x > 0, (x * 10).long() // 3, x.isnan().any(), torch.count_nonzero(x > 0.5)
    return fn, (randn(5, 7),)


@program("antialias_resize")
def antialias_resize():
    def fn(x):
        return F.interpolate(x, size=(5, 7), mode="bilinear", antialias=True) * 2
    return fn, (randn(2, 3, 16, 16),)


@program("no_inputs")
def no_inputs():
    # A graph without inputs: everything it returns it makes.
    def fn():
        t = torch.arange(12, device=CUDA, dtype=torch.float32).reshape(3, 4)
        return (t * 2).softmax(-1), torch.ones(5, device=CUDA, dtype=torch.int64)
    return fn, ()


@program("aliased_outputs")
def aliased_outputs():
    # Outputs that are inputs, views of inputs, or the same result twice.
    def fn(x):
        y = x * 2
        return x, x.t(), y, y, y[1:], x.unsqueeze(0).expand(3, 4, 6)
    return fn, (randn(4, 6),)


@program("offset_strided_inputs")
def offset_strided_inputs():
    # Inputs with a storage offset and transposed strides.
    base = randn(9, 8)

    def fn(a, b):
        return (a + 1).sum(0), b * a[:, :1].sum()
    return fn, (base[1:], randn(8, 6).t())


@program("mixed_dtypes")
def mixed_dtypes():
    def fn(x64, i32, u8, flags):
        y = x64.sin() * i32 + u8.to(torch.float64)
        return y, torch.where(flags, i32, -i32), (u8 // 3).to(torch.int16), y.float().half()
    return fn, (randn(16, dtype=torch.float64), torch.randint(-50, 50, (16,), device=CUDA, dtype=torch.int32),
                torch.randint(0, 255, (16,), device=CUDA, dtype=torch.uint8),
                torch.rand(16, device=CUDA) > 0.5)


@program("zero_size")
def zero_size():
    # Dimensions of size zero: kernels over nothing, empty reductions.
    def fn(x, e):
        return x[:, :0].sum(1) + 1, e * 2, torch.cat([e, x[:0]]), x.sum()
    return fn, (randn(4, 5), randn(0, 5))


@program("one_hot_cat")
def one_hot_cat():
    def fn(labels, feats):
        onehot = F.one_hot(labels, num_classes=5)
        return torch.cat([onehot.float(), feats], dim=1), onehot.sum(0)
    return fn, (torch.randint(0, 5, (6,), device=CUDA), randn(6, 3))


@program("negative_pad_crop")
def negative_pad_crop():
    def fn(x):
        return F.pad(x, (-1, 2, 0, -2)) * 3, F.pad(x, (1, 1), mode="replicate")
    return fn, (randn(2, 5, 6),)


@program("scatter_reduce_amax")
def scatter_reduce_amax():
    def fn(x, idx, src):
        out = x.scatter_reduce(0, idx, src, reduce="amax", include_self=False)
        return out, x.index_reduce(0, idx[:, 0], src, "prod", include_self=True)
    return fn, (randn(5, 3), torch.randint(0, 5, (7, 3), device=CUDA), randn(7, 3))


@program("topk_dynamic", dynamic=True)
def topk_dynamic():
    def fn(x):
        values, indices = x.topk(3, dim=-1)
        return values.softmax(-1), indices, x.shape[0] * 2
    return fn, (randn(10, 16),)


@program("expand_mutation")
def expand_mutation():
    # An input mutated through a slice, and an output with stride 0.
    def fn(x, row):
        x[1:3].mul_(2)
        return row.expand(4, 6) + x[0], x.sum()
    return fn, (randn(4, 6), randn(6))


@program("lstm_cell_unrolled")
def lstm_cell_unrolled():
    cell = nn.LSTMCell(12, 16).to(CUDA)

    def fn(xs, h, c):
        outs = []
        for t in range(xs.shape[0]):
            h, c = cell(xs[t], (h, c))
            outs.append(h)
        return torch.stack(outs), c
    return fn, (randn(4, 3, 12), randn(3, 16), randn(3, 16))


@program("associative_scan_max")
def associative_scan_max():
    # A user combine function: Inductor writes a Triton scan kernel for it.
    from torch._higher_order_ops.associative_scan import associative_scan

    def fn(x):
        return associative_scan(torch.maximum, x, dim=1, combine_mode="pointwise") * 2, x.cummax(1)[1]
    return fn, (randn(4, 32),)


@program("unfold_fold")
def unfold_fold():
    # im2col and back (overlapping windows summed by fold).
    def fn(x):
        cols = F.unfold(x, kernel_size=3, padding=1, stride=2)
        return F.fold(cols * 0.5, output_size=x.shape[-2:], kernel_size=3, padding=1, stride=2)
    return fn, (randn(2, 3, 8, 8),)


@program("kv_cache_update")
def kv_cache_update():
    # A preallocated cache input written at a position given by a tensor.
    def fn(cache, new, pos):
        cache.index_copy_(1, pos, new)
        q = cache[:, :8].sum(1)
        return q, cache.amax()
    return fn, (torch.zeros(2, 16, 4, device=CUDA), randn(2, 3, 4),
                torch.tensor([5, 6, 7], device=CUDA))


@program("masked_scatter_fill")
def masked_scatter_fill():
    def fn(x, mask, src):
        return x.masked_scatter(mask, src), x.masked_fill(~mask, float("-inf")).softmax(-1)
    return fn, (randn(4, 6), torch.rand(4, 6, device=CUDA) > 0.4, randn(24))


@program("cdist_pairwise")
def cdist_pairwise():
    def fn(a, b):
        d = torch.cdist(a, b)
        return d.min(-1).values, torch.cdist(a, b, p=1).argmin(-1)
    return fn, (randn(2, 7, 5), randn(2, 9, 5))


@program("bicubic_resize")
def bicubic_resize():
    def fn(x):
        up = F.interpolate(x, scale_factor=2, mode="bicubic", align_corners=False)
        return up, F.interpolate(x, size=(5, 7), mode="bilinear", align_corners=True)
    return fn, (randn(1, 2, 6, 6),)


@program("tensor_unfold_windows")
def tensor_unfold_windows():
    # Overlapping-window views (stride smaller than the window) reduced.
    def fn(x):
        w = x.unfold(-1, 4, 2)
        return w.mean(-1), (w * w).sum((-1, -2))
    return fn, (randn(3, 17),)


@program("triu_dynamic", dynamic=True)
def triu_dynamic():
    def fn(x):
        n = x.shape[-1]
        causal = torch.ones(n, n, device=x.device, dtype=torch.bool).tril()
        return x.masked_fill(~causal, 0.0).cumsum(-1), torch.triu(x, diagonal=1).sum()
    return fn, (randn(2, 9, 9),)


@program("logsumexp_keepdim")
def logsumexp_keepdim():
    def fn(x):
        lse = torch.logsumexp(x, dim=-1, keepdim=True)
        return x - lse, torch.logsumexp(x.float().masked_fill(x > 1, float("-inf")), 0)
    return fn, (randn(5, 33),)


@program("int64_indexing")
def int64_indexing():
    # More elements than int32 holds (2 GiB of int8): the kernel's numel and
    # its index arithmetic are 64-bit, the launch grid past 2**21 blocks.
    def fn(x):
        x.add_(1)
        return x[-16:] * 2, x[:16].sum(dtype=torch.int64)
    n = 2**31 + 64
    return fn, (torch.randint(0, 100, (n,), device=CUDA, dtype=torch.int8),)


@program("long_thin_transpose")
def long_thin_transpose():
    # Transposes of long, thin matrices (8M by 3): a 1-D kernel over 25M
    # elements and a 2-D tiled one whose x extent is 8M.
    def fn(a, b):
        return a.t().contiguous() + 1, (b.t() * 2).contiguous()
    return fn, (randn(3, 2**23), randn(2**23, 3))


@program("weight_norm_training", training=True)
def weight_norm_training():
    # A parametrized weight (weight_norm's g and v), recomputed per call.
    lin = nn.utils.parametrizations.weight_norm(nn.Linear(12, 7)).to(CUDA)

    def fn(x):
        lin.zero_grad(set_to_none=True)
        loss = F.silu(lin(x)).square().mean()
        loss.backward()
        p = lin.parametrizations.weight
        return loss.detach(), p.original0.grad.clone(), p.original1.grad.clone()
    return fn, (randn(5, 12),)


@program("gather_training", training=True)
def gather_training():
    # gather forward, a scatter-add of the gradient backward.
    def fn(x, idx):
        x = x.detach().requires_grad_(True)
        y = torch.gather(x, 1, idx).sigmoid()
        (y * torch.arange(y.shape[1], device=CUDA)).sum().backward()
        return y.detach(), x.grad
    return fn, (randn(6, 10), torch.randint(0, 10, (6, 15), device=CUDA))


@program("var_std_multi_dim")
def var_std_multi_dim():
    # Reductions over several, non-adjacent dimensions, and a softmax over two.
    def fn(x):
        var, mean = torch.var_mean(x, dim=(0, 2), correction=0, keepdim=True)
        z = (x - mean) * torch.rsqrt(var + 1e-5)
        m = z.amax(dim=(-2, -1), keepdim=True)
        e = (z - m).exp()
        return e / e.sum(dim=(-2, -1), keepdim=True), x.std(-1), torch.nan_to_num(z.log(), nan=0.0,
                                                                                  neginf=-9.0)
    return fn, (randn(4, 6, 5, 7),)


# Not exported yet: the exporter stops with an error naming the construct
# (docs/validation.md, twenty-second run).
@program("complex_io")
def complex_io():
    # Complex tensors in and out of the graph: the wrappers' dtypes and
    # their benchmark inputs.
    def fn(z, w):
        y = z * w.conj() + 1j
        return y, torch.view_as_real(y).sum(-1), z.abs().square()
    return fn, (randn(6, 5, dtype=torch.complex64), randn(6, 5, dtype=torch.complex64))


@program("ctc_loss_training", training=True)
def ctc_loss_training():
    # A fallback with integer-list and tensor length arguments, and its
    # backward.
    def fn(logits, targets, input_lengths, target_lengths):
        logits = logits.detach().requires_grad_(True)
        loss = F.ctc_loss(logits.log_softmax(-1), targets, input_lengths, target_lengths)
        loss.backward()
        return loss.detach(), logits.grad
    t, n, c, s = 12, 3, 6, 4
    return fn, (randn(t, n, c), torch.randint(1, c, (n, s), device=CUDA),
                torch.full((n,), t, device=CUDA, dtype=torch.long),
                torch.tensor([4, 3, 2], device=CUDA, dtype=torch.long))


@program("max_pool_indices_training", training=True)
def max_pool_indices_training():
    # max_pool2d's indices as an output, and the backward that reads them.
    def fn(x):
        x = x.detach().requires_grad_(True)
        y, idx = F.max_pool2d(x, 3, stride=2, padding=1, return_indices=True)
        (y * y).sum().backward()
        return y.detach(), idx, x.grad
    return fn, (randn(2, 3, 9, 9),)


# Not exported yet: the exporter stops with an error naming the construct
# (docs/validation.md, twenty-second run).
@program("cond_shape_predicate", dynamic=True)
def cond_shape_predicate():
    # torch.cond on a predicate of the input's size (a symbolic bool, not a
    # tensor).
    def fn(x):
        return torch.cond(x.shape[0] > 4, lambda t: t.cos() * 2, lambda t: t.sin() - 1, (x,))
    return fn, (randn(7, 3),)


@program("cond_dynamic_operands", dynamic=True)
def cond_dynamic_operands():
    # torch.cond on a tensor under dynamic shapes: the branches take the
    # sizes as operands.
    def fn(p, x):
        return torch.cond(p, lambda t: t.cos() * 2, lambda t: t.sin() - 1, (x,))
    return fn, (torch.tensor(True, device=CUDA), randn(7, 3))


@program("while_loop_dynamic", dynamic=True)
def while_loop_dynamic():
    # A loop under dynamic shapes: both subgraphs take the sizes after the
    # carried values, and the body uses one as a scalar.
    from torch._higher_order_ops.while_loop import while_loop as loop

    def fn(i, x, y):
        n, out = loop(lambda i, t: i < 4,
                      lambda i, t: (i + 1, t * 0.5 + y + t.shape[0]), (i, x))
        return n, out.sin()
    return fn, (torch.tensor(0, device=CUDA), randn(9, 5), randn(9, 5))


@program("nested_region_dynamic", dynamic=True)
def nested_region_dynamic():
    # One nested compile region called twice under dynamic shapes, then a
    # cond on a tensor over its result: every subgraph takes the sizes.
    @torch.compiler.nested_compile_region
    def layer(x, w):
        return torch.relu(x @ w) * 2 + x.shape[0]

    def fn(p, x, w1, w2):
        h = layer(layer(x, w1), w2)
        return torch.cond(p, lambda t: t.tanh(), lambda t: t * 3, (h,))
    return fn, (torch.tensor(False, device=CUDA), randn(6, 16), randn(16, 16), randn(16, 16))


@program("cudnn_lstm")
def cudnn_lstm():
    # nn.LSTM through cuDNN: a fallback taking a list of weight tensors and
    # returning several outputs.
    lstm = nn.LSTM(8, 16, num_layers=2, batch_first=True).to(CUDA).eval()

    def fn(x):
        out, (h, c) = lstm(x)
        return out.relu(), h, c.sum(0)
    return fn, (randn(3, 5, 8),)


@program("index_add_duplicates")
def index_add_duplicates():
    # index_add_ into an input with repeated indices (atomic adds).
    def fn(acc, idx, src):
        acc.index_add_(0, idx, src, alpha=0.5)
        return acc.sum(1)
    return fn, (randn(5, 4), torch.tensor([0, 2, 2, 4, 0, 0], device=CUDA), randn(6, 4))


@program("scatter_reduce_mean")
def scatter_reduce_mean():
    def fn(x, idx, src):
        a = x.scatter_reduce(1, idx, src, reduce="mean", include_self=False)
        b = x.scatter_reduce(1, idx, src, reduce="prod")
        return a, b
    return fn, (randn(3, 6), torch.randint(0, 6, (3, 8), device=CUDA), randn(3, 8))


@program("cat_with_empty")
def cat_with_empty():
    # cat with an empty piece and pieces of other dtypes promoted.
    def fn(a, b, c):
        return torch.cat([a, b[:0], c.to(a.dtype) * 2]).cumsum(0), torch.cat([b, a], 1).amax(0)
    return fn, (randn(3, 4), randn(3, 4), torch.randint(0, 9, (2, 4), device=CUDA))


@program("cond_shape_both_branches", dynamic=True)
def cond_shape_both_branches():
    # Three torch.cond on comparisons of sizes under dynamic shapes: one
    # takes its true branch, one its false branch (sizes of two inputs
    # compared), one compares a remainder.
    def fn(x, y):
        a = torch.cond(x.shape[0] > 4, lambda t: t.cos() * 2, lambda t: t.sin() - 1, (x,))
        b = torch.cond(x.shape[0] < y.shape[0], lambda t, u: t + u.sum(),
                       lambda t, u: t - u.mean(), (a, y))
        c = torch.cond(x.shape[0] % 2 == 1, lambda t: t * 3, lambda t: t + 3, (b,))
        return a, b, c
    return fn, (randn(7, 3), randn(5, 3))


@program("complex_scalar_ops")
def complex_scalar_ops():
    # Python complex numbers as arguments of complex ops (aten fallbacks).
    def fn(r, theta, z):
        p = torch.polar(r, theta) * (2 - 3j)
        return p + z * 1j, (p.conj() * z).real.sum(0)
    return fn, (randn(4, 6).abs(), randn(4, 6), randn(4, 6, dtype=torch.complex64))


@program("dynamic_scalar_outputs", dynamic=True)
def dynamic_scalar_outputs():
    # Sizes returned as Python integers beside tensors (ShapeAsConstantBuffer
    # outputs), one of them an expression of two symbols.
    def fn(x):
        return x * 2, x.shape[0] * 3, x.shape[0] * x.shape[1] + 1
    return fn, (randn(6, 5),)


@program("dynamic_cat_offsets", dynamic=True)
def dynamic_cat_offsets():
    # cat of pieces whose sizes are symbols: the second piece is written
    # through a view at a symbolic offset; slices of the result by size.
    def fn(x, y):
        z = torch.cat([x.relu(), y * 2])
        return z[: x.shape[0]].sum(0), z[x.shape[0]:].exp(), z
    return fn, (randn(5, 4), randn(3, 4))


@program("dynamic_floordiv_view", dynamic=True)
def dynamic_floordiv_view():
    # Sizes with floor division and strided views under dynamic shapes.
    def fn(x):
        a = x.reshape(x.shape[0] // 2, -1) + 1
        b = x[::2].sin()
        return a, b, x.new_zeros(x.shape[0] * 2) + x.shape[1]
    return fn, (randn(8, 3),)


@program("padded_strides")
def padded_strides():
    # Inductor's comprehensive padding: intermediate buffers whose strides
    # are padded past their sizes, returned as outputs (pad_outputs).
    import torch._inductor.config as config
    config.comprehensive_padding = True
    config.pad_outputs = True

    def fn(x, w):
        y = (x @ w).relu()
        return y + 1, y.t().contiguous().sum(1)
    return fn, (randn(50, 30), randn(30, 37))


@program("nested_outputs")
def nested_outputs():
    # Nested tuples and a None among the outputs, an input returned as is.
    def fn(x, y):
        a = x + y
        return (a, (a.sum(), None)), [y, x * 0.5]
    return fn, (randn(4, 4), randn(4, 4))


@program("mutate_input_views")
def mutate_input_views():
    # In-place updates of views of two inputs (a column slice and a
    # transpose): the wrapper must write through to the inputs' storage.
    def fn(x, y):
        x[:, :2].mul_(2)
        y.t().add_(torch.arange(4, device=CUDA, dtype=y.dtype))
        return x.sum(), y.amax(1)
    return fn, (randn(4, 5), randn(4, 4))


@program("frozen_conv_bn")
def frozen_conv_bn():
    # Inference with Inductor's freezing: parameters become constants of the
    # graph and batch norm folds into the convolution. Freezing applies only
    # with grad mode off when the graph compiles.
    import torch._inductor.config as config
    config.freezing = True
    torch.set_grad_enabled(False)
    model = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(),
                          nn.Conv2d(16, 8, 1), nn.Flatten(), nn.Linear(8 * 8 * 8, 10))
    model = model.to(CUDA).eval()
    with torch.no_grad():
        model[1].running_mean.uniform_(-0.5, 0.5)
        model[1].running_var.uniform_(0.5, 1.5)
    return model, (randn(2, 3, 8, 8),)


@program("frozen_mlp_dynamic", dynamic=True)
def frozen_mlp_dynamic():
    # Freezing under dynamic shapes: frozen weights beside a symbolic batch.
    import torch._inductor.config as config
    config.freezing = True
    torch.set_grad_enabled(False)
    model = nn.Sequential(nn.Linear(24, 48), nn.LayerNorm(48), nn.GELU(),
                          nn.Linear(48, 12)).to(CUDA).eval()
    return model, (randn(7, 24),)


@program("cat_many_inputs")
def cat_many_inputs():
    # More inputs than a pointwise cat takes in one kernel: the rest are
    # written into slices of the result.
    def fn(*xs):
        return torch.cat([x * (i + 1) for i, x in enumerate(xs)], 1).sum(0)
    return fn, tuple(randn(4, 3) for _ in range(40))


@program("wide_sum_inputs")
def wide_sum_inputs():
    # One pointwise expression over 130 inputs: kernels with long parameter
    # lists, a call with 130 arguments.
    def fn(*xs):
        total = xs[0]
        for x in xs[1:]:
            total = total + x
        return total.relu()
    return fn, tuple(randn(64) for _ in range(130))


@program("forced_shape_padding")
def forced_shape_padding():
    # Matmul operands padded to aligned sizes and the result sliced back.
    import torch._inductor.config as config
    config.shape_padding = True
    config.force_shape_pad = True

    def fn(a, b):
        return (a @ b).tanh()
    return fn, (randn(33, 67), randn(67, 35))


@program("multi_kernel_reduction", dynamic=True)
def multi_kernel_reduction():
    # Inductor's multi-kernel: a reduction compiled both persistent and
    # looped, one picked at run time.
    import torch._inductor.config as config
    config.triton.multi_kernel = 1

    def fn(x):
        return torch.softmax(x, -1) * x.sum(-1, keepdim=True)
    return fn, (randn(8, 300),)


@program("autotuned_conv", mode="max-autotune-no-cudagraphs")
def autotuned_conv():
    # Convolution through Inductor's Triton conv template.
    model = nn.Sequential(nn.Conv2d(8, 16, 3, padding=1), nn.ReLU()).to(CUDA).eval()

    def fn(x):
        with torch.no_grad():
            return model(x) + 1
    return fn, (randn(2, 8, 12, 12),)


@program("autotuned_bmm_dynamic", dynamic=True, mode="max-autotune-no-cudagraphs")
def autotuned_bmm_dynamic():
    # A batched matmul template under dynamic shapes: a symbolic launch grid.
    def fn(a, b):
        return torch.bmm(a, b).relu() + 0.5
    return fn, (randn(3, 40, 24), randn(3, 24, 56))


@program("zero_dim_inputs")
def zero_dim_inputs():
    # 0-d CUDA tensors in and out, a boolean one among them.
    def fn(x, s, flag):
        return torch.where(flag, x * s, x - s), s * 2, (x.sum() > s)
    return fn, (randn(5), randn(()), torch.tensor(True, device=CUDA))


@program("fallback_random", rng=True)
def fallback_random():
    # Random numbers through ATen rather than Triton (fallback_random).
    import torch._inductor.config as config
    config.fallback_random = True

    def fn(x):
        return F.dropout(x, 0.25, training=True) + torch.rand_like(x)
    return fn, (randn(8, 16),)


@program("deterministic_index_add")
def deterministic_index_add():
    # Deterministic algorithms: accumulation into repeated indices without
    # atomics.
    torch.use_deterministic_algorithms(True)

    def fn(x, idx, src):
        return x.index_add(0, idx, src) * 2, torch.zeros(5, device=CUDA).index_put(
            (idx[:3] % 5,), src[:3, 0], accumulate=True)
    return fn, (randn(6, 4), torch.tensor([0, 2, 2, 5, 0], device=CUDA), randn(5, 4))


@program("conv1d_dilated_groups")
def conv1d_dilated_groups():
    # A 1-d convolution with dilation, groups and no bias: an extern call
    # with list arguments of one element.
    model = nn.Conv1d(8, 12, 5, dilation=2, groups=4, padding=4, bias=False).to(CUDA).eval()

    def fn(x):
        with torch.no_grad():
            return model(x).sigmoid()
    return fn, (randn(2, 8, 20),)


@program("persistent_tma_mm", mode="max-autotune-no-cudagraphs")
def persistent_tma_mm():
    # Hopper's persistent matmul template with TMA descriptors, when the
    # autotuner picks it.
    import torch._inductor.config as config
    config.triton.enable_persistent_tma_matmul = True
    config.max_autotune_gemm_backends = "TRITON"

    def fn(a, b):
        return (a @ b) * 0.5
    return fn, (randn(256, 128), randn(128, 192))


@program("cudnn_lstm_no_grad")
def cudnn_lstm_no_grad():
    # nn.LSTM: the cuDNN RNN as one fallback taking a list of weights and
    # returning several tensors.
    lstm = nn.LSTM(16, 24, num_layers=2, batch_first=True).to(CUDA).eval()

    def fn(x):
        with torch.no_grad():
            out, (h, c) = lstm(x)
            return out.relu(), h.sum(0), c
    return fn, (randn(3, 7, 16),)


@program("svd_reconstruct")
def svd_reconstruct():
    # A linear-algebra fallback with three outputs, one of them sliced.
    def fn(x):
        u, s, vh = torch.linalg.svd(x, full_matrices=False)
        return (u[:, :4] * s[:4]) @ vh[:4], s
    return fn, (randn(12, 9),)


@program("reduce_overhead_training", mode="reduce-overhead", training=True)
def reduce_overhead_training():
    # CUDA graph trees over a forward and its backward.
    model = nn.Sequential(nn.Linear(20, 40), nn.GELU(), nn.Linear(40, 1)).to(CUDA)

    def fn(x):
        model.zero_grad(set_to_none=True)
        loss = model(x).pow(2).mean()
        loss.backward()
        return loss.detach().clone(), model[0].weight.grad.clone()
    return fn, (randn(16, 20),)


@program("item_float_output", data_dependent=True)
def item_float_output():
    # A Python float from .item() among the outputs, and used in the graph.
    def fn(x):
        m = x.abs().max().item()
        return x / m, m
    return fn, (randn(6, 5),)


@program("tensor_literal_inside")
def tensor_literal_inside():
    # Tensors built from Python lists inside the compiled function.
    def fn(x):
        w = torch.tensor([0.5, -1.0, 2.0], device=x.device)
        idx = torch.tensor([2, 0, 1, 1], device=x.device)
        return (x * w)[:, idx], torch.tensor(7, device=x.device) + x.sum()
    return fn, (randn(4, 3),)


@program("cat_empty_operand")
def cat_empty_operand():
    # A concatenation with an empty operand and an empty result beside it.
    def fn(x, e):
        return torch.cat([x, e, x * 2], 0), e.sum(0), x[:0] + 1
    return fn, (randn(3, 4), randn(0, 4))


@program("instance_norm_training", training=True)
def instance_norm_training():
    norm = nn.InstanceNorm2d(6, affine=True).to(CUDA)

    def fn(x):
        norm.zero_grad(set_to_none=True)
        y = norm(x)
        y.square().mean().backward()
        return y.detach(), norm.weight.grad.clone(), norm.bias.grad.clone()
    return fn, (randn(2, 6, 5, 5),)


@program("unpool_roundtrip")
def unpool_roundtrip():
    # max_pool2d's indices fed to max_unpool2d (a fallback scattering into
    # a new tensor).
    def fn(x):
        y, idx = F.max_pool2d(x, 2, return_indices=True)
        return F.max_unpool2d(y * 2, idx, 2, output_size=x.shape[-2:]), idx
    return fn, (randn(2, 3, 8, 8),)


@program("multinomial_sampling", rng=True)
def multinomial_sampling():
    # Sampling with replacement from probabilities a kernel computes.
    def fn(logits):
        probs = torch.softmax(logits, -1)
        return torch.multinomial(probs, 5, replacement=True), probs
    return fn, (randn(4, 10),)


@program("cummax_training", training=True)
def cummax_training():
    # cummax: values and indices from one fallback, and its backward.
    def fn(x):
        x = x.detach().requires_grad_()
        values, indices = torch.cummax(x, 1)
        values.sum().backward()
        return values.detach(), indices, x.grad
    return fn, (randn(5, 9),)


@program("nll_ignore_index_training", training=True)
def nll_ignore_index_training():
    # A loss that skips padded targets, and its gradient.
    head = nn.Linear(8, 6).to(CUDA)

    def fn(x, targets):
        head.zero_grad(set_to_none=True)
        loss = F.cross_entropy(head(x), targets, ignore_index=-100, label_smoothing=0.0)
        loss.backward()
        return loss.detach(), head.weight.grad.clone()
    return fn, (randn(10, 8), torch.tensor([1, -100, 3, 5, -100, 0, 2, 2, 4, -100],
                                           device=CUDA))


@program("bitcast_same_size")
def bitcast_same_size():
    # Reinterpreting float bits as integers and back (view with a dtype of
    # the same size), one of the views returned as it is.
    def fn(x):
        bits = x.view(torch.int32)
        return (bits & 0x7FFFFFFF).view(torch.float32), bits
    return fn, (randn(6, 5),)


@program("bitcast_bytes")
def bitcast_bytes():
    # A dtype view that changes the last dimension's size (bfloat16 as
    # bytes) and one that keeps it (bfloat16 as int16).
    def fn(x):
        raw = x.view(torch.uint8)
        return raw.to(torch.int32).sum(1), x.view(torch.int16) + 1
    return fn, (randn(4, 6, dtype=torch.bfloat16),)


@program("as_strided_intermediate")
def as_strided_intermediate():
    # An explicit strided window, with a storage offset, into a buffer a
    # kernel wrote; the window is returned as well as used.
    def fn(x):
        y = x * 2
        window = y.as_strided((3, 4), (1, 3), 2)
        return window + 1, window
    return fn, (randn(20),)


@program("searchsorted_dynamic", dynamic=True)
def searchsorted_dynamic():
    # Bucketing values into a sorted sequence whose lengths are symbols.
    def fn(edges, values):
        sorted_edges, _ = torch.sort(edges)
        return torch.searchsorted(sorted_edges, values, right=True), sorted_edges
    return fn, (randn(17), randn(33))


@program("qr_reconstruct")
def qr_reconstruct():
    # A two-output linear-algebra fallback, one output read through a
    # diagonal view.
    def fn(x):
        q, r = torch.linalg.qr(x)
        return q @ r, r.diagonal().abs()
    return fn, (randn(8, 5),)


@program("transformer_encoder_eval")
def transformer_encoder_eval():
    # nn.TransformerEncoderLayer in inference, pre-norm, batch first: eager
    # takes PyTorch's fused fast path where it can.
    layer = nn.TransformerEncoderLayer(32, 4, 64, dropout=0.0, batch_first=True,
                                       norm_first=True).to(CUDA).eval()

    def fn(x):
        with torch.no_grad():
            return layer(x)
    return fn, (randn(2, 7, 32),)


@program("index_copy_input")
def index_copy_input():
    # Rows of an input replaced in place, then read.
    def fn(x, idx, rows):
        x.index_copy_(0, idx, rows)
        return x.sum(0)
    return fn, (randn(9, 4), torch.tensor([7, 1, 4], device=CUDA), randn(3, 4))


@program("scatter_prod")
def scatter_prod():
    # A product scatter-reduction that includes the destination's values.
    def fn(x, idx, src):
        return torch.scatter_reduce(x, 1, idx, src, reduce="prod", include_self=True)
    return fn, (randn(3, 6), torch.randint(0, 6, (3, 8), device=CUDA), randn(3, 8))


@program("logcumsumexp_training", training=True)
def logcumsumexp_training():
    # A scan with a log-sum-exp combine, and its backward.
    def fn(x):
        x = x.detach().requires_grad_()
        y = torch.logcumsumexp(x, 1)
        y.sum().backward()
        return y.detach(), x.grad
    return fn, (randn(4, 11),)


@program("histc_counts")
def histc_counts():
    # A histogram fallback with float bounds as keyword arguments.
    def fn(x):
        return torch.histc(x, bins=10, min=-2.0, max=2.0), x.clamp(-2.0, 2.0)
    return fn, (randn(64),)


@program("infinite_scalars")
def infinite_scalars():
    # Infinities as fill values and bounds: they must reach the wrapper as
    # numbers, not names.
    def fn(x, mask):
        filled = x.masked_fill(mask, float("-inf"))
        top = torch.full((4,), float("inf"), device=CUDA)
        return torch.softmax(filled, -1), torch.minimum(top, x[0, :4]), \
            torch.nan_to_num(x / 0.0, posinf=1e30, neginf=-1e30)
    return fn, (randn(3, 4), torch.tensor([[True, False, False, False]] * 3, device=CUDA))


@program("dynamic_conv_bn", dynamic=True)
def dynamic_conv_bn():
    # An extern convolution whose batch and image sizes are symbols.
    model = nn.Sequential(nn.Conv2d(3, 6, 3, padding=1), nn.BatchNorm2d(6),
                          nn.ReLU()).to(CUDA).eval()
    return model, (randn(3, 3, 10, 7),)


@program("dynamic_reshape_outputs", dynamic=True)
def dynamic_reshape_outputs():
    # Views with symbolic sizes and strides returned as they are: a
    # transpose of a reshaped intermediate and a column of it.
    def fn(x):
        y = (x + 1).reshape(x.shape[0] * 2, -1)
        return y.t(), y[:, 1], y.sum(1)
    return fn, (randn(5, 6),)


@program("dynamic_expand_output", dynamic=True)
def dynamic_expand_output():
    # A broadcast (stride 0) output whose size is a symbol.
    def fn(x, n):
        row = x.sum(0, keepdim=True)
        return row.expand(n.shape[0], -1), row * 2
    return fn, (randn(7, 4), randn(9))


@program("dynamic_addmm", dynamic=True)
def dynamic_addmm():
    # A matmul with bias whose row count is a symbol, then a reduction.
    lin = nn.Linear(12, 8).to(CUDA)

    def fn(x):
        y = lin(x)
        return y, y.amax(0)
    return fn, (randn(11, 12),)


@program("dynamic_index_select", dynamic=True)
def dynamic_index_select():
    # Gathering rows by an index tensor whose length is a symbol.
    def fn(table, idx):
        return torch.index_select(table, 0, idx) * 2, table.mean()
    return fn, (randn(13, 5), torch.tensor([0, 12, 3, 3, 7], device=CUDA))


@program("dynamic_pad_slice", dynamic=True)
def dynamic_pad_slice():
    # Padding and cropping by fixed amounts around symbolic sizes.
    def fn(x):
        p = F.pad(x, (1, 2, 0, 1), value=-1.0)
        return p[:, 1:-1].relu(), p.shape[0] * p.shape[1]
    return fn, (randn(6, 8),)


@program("dynamic_split_outputs", dynamic=True)
def dynamic_split_outputs():
    # Chunks of an intermediate returned as views at symbolic offsets.
    def fn(x):
        y = x * 3
        a, b = torch.split(y, [2, y.shape[0] - 2])
        return a, b, b.sum()
    return fn, (randn(9, 3),)


@program("dynamic_max_pool_training", dynamic=True, training=True)
def dynamic_max_pool_training():
    # max_pool2d with indices and its backward under symbolic sizes.
    def fn(x):
        x = x.detach().requires_grad_()
        y = F.max_pool2d(x, 2)
        y.sum().backward()
        return y.detach(), x.grad
    return fn, (randn(2, 3, 8, 6),)


@program("dynamic_conv_stride_training", dynamic=True, training=True)
def dynamic_conv_stride_training():
    # A strided convolution's backward: its graph is handed sizes such as
    # (s0 - 1)//2 + 1 as integers.
    conv = nn.Conv2d(3, 4, 3, stride=2).to(CUDA)

    def fn(x):
        conv.zero_grad(set_to_none=True)
        x = x.detach().requires_grad_()
        y = F.relu(conv(x))
        y.sum().backward()
        return y.detach(), x.grad, conv.weight.grad.clone()
    return fn, (randn(2, 3, 11, 9),)


@program("dynamic_avg_pool_training", dynamic=True, training=True)
def dynamic_avg_pool_training():
    # Padded, strided average pooling and its backward.
    def fn(x):
        x = x.detach().requires_grad_()
        y = F.avg_pool2d(x, 3, stride=2, padding=1)
        (y * y).sum().backward()
        return y.detach(), x.grad
    return fn, (randn(2, 2, 9, 7),)


@program("dynamic_upsample_training", dynamic=True, training=True)
def dynamic_upsample_training():
    # Bilinear upsampling by a fixed factor, and its backward.
    def fn(x):
        x = x.detach().requires_grad_()
        y = F.interpolate(x, scale_factor=2, mode="bilinear", align_corners=False)
        y.pow(2).mean().backward()
        return y.detach(), x.grad
    return fn, (randn(1, 2, 5, 6),)


@program("dynamic_cat_training", dynamic=True, training=True)
def dynamic_cat_training():
    # A concatenation whose backward splits the gradient at a symbolic offset.
    def fn(a, b, w):
        a = a.detach().requires_grad_()
        b = b.detach().requires_grad_()
        y = torch.cat([a, b], 0) * w
        y.sum().backward()
        return y.detach(), a.grad, b.grad
    return fn, (randn(5, 3), randn(7, 3), randn(3))


@program("dynamic_narrow_training", dynamic=True, training=True)
def dynamic_narrow_training():
    # A crop that depends on the size, and its backward (a padded gradient).
    def fn(x):
        x = x.detach().requires_grad_()
        y = x.narrow(1, 1, x.shape[1] - 2).tanh()
        y.sum().backward()
        return y.detach(), x.grad
    return fn, (randn(4, 10),)


@program("dynamic_reshape_training", dynamic=True, training=True)
def dynamic_reshape_training():
    # Rows regrouped by reshape(-1, 4) before a matmul, and the backward.
    w = torch.randn(4, 3, device=CUDA, requires_grad=True)

    def fn(x):
        w.grad = None
        x = x.detach().requires_grad_()
        y = x.reshape(-1, 4) @ w
        y.relu().sum().backward()
        return y.detach(), x.grad, w.grad.clone()
    return fn, (randn(6, 8),)


@program("dynamic_ce_training", dynamic=True, training=True)
def dynamic_ce_training():
    # Cross-entropy over a symbolic batch, and the gradient of the logits.
    def fn(logits, targets):
        logits = logits.detach().requires_grad_()
        loss = F.cross_entropy(logits, targets)
        loss.backward()
        return loss.detach(), logits.grad
    return fn, (randn(9, 5), torch.randint(0, 5, (9,), device=CUDA))


@program("dynamic_unfold_training", dynamic=True, training=True)
def dynamic_unfold_training():
    # Non-overlapping patches (im2col) and their backward (col2im).
    def fn(x):
        x = x.detach().requires_grad_()
        cols = F.unfold(x, 2, stride=2)
        (cols * cols).sum().backward()
        return cols.detach(), x.grad
    return fn, (randn(2, 3, 6, 8),)


@program("dynamic_embedding_training", dynamic=True, training=True)
def dynamic_embedding_training():
    # An embedding lookup with a symbolic number of indices; the gradient
    # accumulates rows of repeated indices.
    emb = nn.Embedding(20, 6).to(CUDA)

    def fn(idx):
        emb.zero_grad(set_to_none=True)
        y = emb(idx)
        (y * y).sum().backward()
        return y.detach(), emb.weight.grad.clone()
    return fn, (torch.tensor([3, 7, 3, 19, 0, 7, 7], device=CUDA),)


@program("dynamic_masked_softmax_training", dynamic=True, training=True)
def dynamic_masked_softmax_training():
    # A softmax over keys beyond a symbolic length masked out, and its backward.
    def fn(scores, lengths):
        scores = scores.detach().requires_grad_()
        keys = torch.arange(scores.shape[1], device=CUDA)
        masked = scores.masked_fill(keys[None, :] >= lengths[:, None], float("-inf"))
        p = torch.softmax(masked, -1)
        (p * p).sum().backward()
        return p.detach(), scores.grad
    return fn, (randn(3, 7), torch.tensor([7, 4, 1], device=CUDA))


@program("dynamic_max_pool_ceil_training", dynamic=True, training=True)
def dynamic_max_pool_ceil_training():
    # Pooling with ceil_mode: output sizes round a fraction up.
    def fn(x):
        x = x.detach().requires_grad_()
        y = F.max_pool2d(x, 3, stride=2, ceil_mode=True)
        y.sum().backward()
        return y.detach(), x.grad
    return fn, (randn(2, 2, 10, 7),)


@program("dynamic_interpolate_fraction", dynamic=True)
def dynamic_interpolate_fraction():
    # A non-integer scale factor: the output size is floor(s * 3/2).
    def fn(x):
        return F.interpolate(x, scale_factor=1.5, mode="nearest") * 2
    return fn, (randn(1, 3, 6, 5),)


@program("dynamic_strided_slice_outputs", dynamic=True)
def dynamic_strided_slice_outputs():
    # Every other row and column of an intermediate, returned as views whose
    # sizes round half the size up.
    def fn(x):
        y = x + 1
        return y[::2], y[:, 1::2], y[::2].sum()
    return fn, (randn(9, 7),)


@program("dynamic_chunk_outputs", dynamic=True)
def dynamic_chunk_outputs():
    # Three chunks of a symbolic size: the chunk size is a rounded-up third.
    def fn(x):
        a, b, c = torch.chunk(x * 2, 3, dim=0)
        return a, b, c.sum(0)
    return fn, (randn(10, 4),)


@program("dynamic_tensor_unfold_step", dynamic=True)
def dynamic_tensor_unfold_step():
    # Overlapping windows (size 3, step 2) as a view, then reduced.
    def fn(x):
        windows = (x * 1).unfold(1, 3, 2)
        return windows, windows.amax(-1)
    return fn, (randn(3, 11),)


@program("dynamic_conv_transpose_training", dynamic=True, training=True)
def dynamic_conv_transpose_training():
    # A strided transposed convolution: sizes grow to (s - 1)*2 + 3.
    deconv = nn.ConvTranspose2d(3, 2, 3, stride=2).to(CUDA)

    def fn(x):
        deconv.zero_grad(set_to_none=True)
        x = x.detach().requires_grad_()
        y = deconv(x)
        y.pow(2).sum().backward()
        return y.detach(), x.grad, deconv.weight.grad.clone()
    return fn, (randn(1, 3, 5, 4),)


@program("dynamic_avg_pool1d_ceil", dynamic=True, training=True)
def dynamic_avg_pool1d_ceil():
    # 1-d average pooling with ceil_mode and padding, and its backward.
    def fn(x):
        x = x.detach().requires_grad_()
        y = F.avg_pool1d(x, 4, stride=3, padding=1, ceil_mode=True)
        y.sum().backward()
        return y.detach(), x.grad
    return fn, (randn(2, 3, 13),)


@program("dynamic_adaptive_pool_training", dynamic=True, training=True)
def dynamic_adaptive_pool_training():
    # Adaptive average pooling to a fixed size from a symbolic one.
    def fn(x):
        x = x.detach().requires_grad_()
        y = F.adaptive_avg_pool2d(x, (3, 2))
        (y * y).sum().backward()
        return y.detach(), x.grad
    return fn, (randn(2, 4, 11, 7),)


# Inductor settings that change what the wrapper holds: combined launches,
# workspaces, launch options, kernel naming, asserts and partitions.

@program("combo_kernels_mixed")
def combo_kernels_mixed():
    # Combo kernels: independent work of different sizes as one launch with
    # a combined grid.
    import torch._inductor.config as config
    config.combo_kernels = True

    def fn(a, b, c):
        return a.sin() + 1, b.cos() * 2, (c * c).sum(-1)
    return fn, (randn(64, 32), randn(1000), randn(16, 128))


@program("cooperative_sum")
def cooperative_sum():
    # Cooperative reductions: one reduction shared by several thread blocks
    # that meet through a zeroed workspace.
    import torch._inductor.config as config
    config.triton.cooperative_reductions = True
    config.triton.force_cooperative_reductions = True

    def fn(x):
        return x.sum(), (x * x).mean(0)
    return fn, (randn(4096, 64),)


@program("split_reduction_norm")
def split_reduction_norm():
    # Full reductions of a large tensor: split into two kernels with an
    # intermediate buffer.
    def fn(x):
        return x.norm(), x.abs().amax()
    return fn, (randn(1 << 20),)


@program("nd_tiling_permute")
def nd_tiling_permute():
    # Three-dimensional tiling: a launch grid over z as well.
    import torch._inductor.config as config
    config.triton.max_tiles = 3
    config.triton.prefer_nd_tiling = True

    def fn(x):
        return x.permute(2, 0, 1).contiguous() * 2 + x.sum(1, keepdim=True).permute(2, 0, 1)
    return fn, (randn(16, 24, 40),)


@program("pdl_launch")
def pdl_launch():
    # Programmatic dependent launch: kernels compiled and launched with PDL.
    import torch._inductor.config as config
    config.triton.enable_pdl = True

    def fn(x, y):
        return torch.relu(x @ y).softmax(-1) + 1
    return fn, (randn(64, 96), randn(96, 80))


@program("coordinate_descent_tuned")
def coordinate_descent_tuned():
    # Kernel configs picked by coordinate descent over block sizes.
    import torch._inductor.config as config
    config.coordinate_descent_tuning = True

    def fn(x, w):
        return F.layer_norm(x, (x.shape[-1],), w).relu()
    return fn, (randn(128, 384), randn(384))


@program("generic_kernel_names")
def generic_kernel_names():
    # Kernel names without the fused ops in them.
    import torch._inductor.config as config
    config.triton.unique_kernel_names = False

    def fn(x):
        return (x.sin() + x.cos()).sum(1), x.exp()
    return fn, (randn(32, 48),)


@program("original_aten_names")
def original_aten_names():
    # Kernel names from the original aten ops.
    import torch._inductor.config as config
    config.triton.descriptive_names = "original_aten"

    def fn(x, y):
        return F.gelu(x @ y) * 0.5, (x * x).sum()
    return fn, (randn(40, 24), randn(24, 56))


@program("no_size_asserts")
def no_size_asserts():
    # No size or alignment asserts on extern outputs.
    import torch._inductor.config as config
    config.size_asserts = False
    config.alignment_asserts = False

    def fn(x, y):
        z = x @ y
        return z.t().contiguous() + 1, z[:, 1:].sum(0)
    return fn, (randn(30, 20), randn(20, 50))


@program("nan_asserts")
def nan_asserts():
    # Checks for NaN and Inf on every buffer the wrapper computes.
    import torch._inductor.config as config
    config.nan_asserts = True

    def fn(x):
        return (x.exp() + 1).log() * 2
    return fn, (randn(16, 16),)


@program("graph_partition_custom_op")
def graph_partition_custom_op():
    # Graph partitions: the wrapper split around an operator marked unsafe
    # for CUDA graphs.
    import torch._inductor.config as config
    config.graph_partition = True

    @torch.library.custom_op("wirc_heldout::host_step", mutates_args=(),
                             tags=(torch._C.Tag.cudagraph_unsafe,))
    def host_step(x: torch.Tensor) -> torch.Tensor:
        return x * 2

    @host_step.register_fake
    def _(x):
        return torch.empty_like(x)

    def fn(x):
        y = x.sin() + 1
        z = host_step(y)
        return z.cos() * y, y.sum()
    return fn, (randn(64, 8),)


@program("split_scan_cumsum")
def split_scan_cumsum():
    # A long scan split over blocks that pass partial sums through a workspace.
    def fn(x):
        return torch.cumsum(x, 0) * 0.5
    return fn, (randn(1 << 20),)


@program("inductor_memory_planning")
def inductor_memory_planning():
    # Inductor's own memory planning: intermediate buffers carved from pools.
    import torch._inductor.config as config
    config.memory_planning = True

    def fn(x, w):
        a = (x @ w).relu() * 2
        return (a @ w.t()).sum(0), a.mean()
    return fn, (randn(48, 32), randn(32, 64))


@program("persistent_reductions_off")
def persistent_reductions_off():
    # Looped reductions only.
    import torch._inductor.config as config
    config.triton.persistent_reductions = False

    def fn(x):
        return torch.softmax(x, -1), x.logsumexp(-1)
    return fn, (randn(32, 200),)


@program("benchmark_kernel_sources")
def benchmark_kernel_sources():
    # Kernel modules that carry their own benchmark harness.
    import torch._inductor.config as config
    config.benchmark_kernel = True

    def fn(x, y):
        return (x + y).tanh(), (x * y).sum(1)
    return fn, (randn(24, 40), randn(24, 40))


@program("mixed_cpu_gpu")
def mixed_cpu_gpu():
    # A CPU input reduced by a C++ kernel, copied to the GPU and used by a
    # Triton kernel: one graph with both kinds of kernel.
    def fn(x, table):
        scale = (table * 2).sum(0)
        return (x * scale.to(x.device)).relu(), scale
    return fn, (randn(16, 8), torch.randn(5, 8))
