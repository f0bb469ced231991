"""Programs whose Inductor graphs make wirc's test corpus.

Each entry builds a callable and its inputs on CUDA with a fixed seed. They
cover what a wrapper compiler meets in practice: extern matmuls, reductions,
multi-output fallbacks, views, dynamic shapes, training, graph breaks,
convolutions, in-place mutation, scans, control flow and deep graphs.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F

CUDA = "cuda"
PROGRAMS = {}


def registry(programs):
    """A decorator that enters a program's builder in `programs`, with its
    torch.compile options: dynamic shapes, mode (torch.compile's), and rng
    (it draws random numbers: compared with Inductor's compiled function,
    which draws the same ones, not with eager), data_dependent (compiled with
    dynamo capturing .item() and ops whose output shape depends on data,
    which gives Inductor unbacked symbols), export_error (a construct the
    exporter must decline: the program passes when its export stops with an
    ExportError whose message holds this text)."""
    def program(name, *, dynamic=False, training=False, mode=None, rng=False,
                data_dependent=False, export_error=None):
        def register(build):
            # A second program of the same name would silently replace the first.
            if name in programs:
                raise ValueError(f"two programs are named {name!r}")
            programs[name] = {"build": build, "dynamic": dynamic, "training": training,
                              "mode": mode, "rng": rng, "data_dependent": data_dependent,
                              "export_error": export_error}
            return build
        return register
    return program


program = registry(PROGRAMS)


def randn(*shape, **kw):
    return torch.randn(*shape, device=CUDA, **kw)


@program("mlp")
def mlp():
    model = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 32)).to(CUDA)
    return model, (randn(16, 64),)


@program("layernorm_softmax")
def layernorm_softmax():
    def fn(x, w, b):
        return torch.softmax(F.layer_norm(x, (256,), w, b), dim=-1)
    return fn, (randn(32, 256), randn(256), randn(256))


@program("attention")
def attention():
    def fn(q, k, v):
        scores = torch.bmm(q, k.transpose(1, 2)) / 8.0
        manual = torch.bmm(torch.softmax(scores, -1), v)
        sdpa = F.scaled_dot_product_attention(q.unsqueeze(1), k.unsqueeze(1), v.unsqueeze(1))
        return manual + sdpa.squeeze(1)
    return fn, (randn(4, 32, 64), randn(4, 32, 64), randn(4, 32, 64))


@program("topk")
def topk():
    def fn(x):
        values, indices = torch.topk(x, 4)
        return values + 1, indices * 2
    return fn, (randn(8, 64),)


@program("views")
def views():
    def fn(x, y):
        a = (x + y).t()
        b = a.reshape(-1)[::2]
        return a, b, x.transpose(0, 1).contiguous() * 2
    return fn, (randn(16, 24), randn(16, 24))


@program("dynamic_1d", dynamic=True)
def dynamic_1d():
    def fn(x, y):
        return torch.relu(x + y) * 3
    return fn, (randn(1000), randn(1000))


@program("dynamic_2d", dynamic=True)
def dynamic_2d():
    def fn(x, y):
        return (x * y.unsqueeze(0)).sum(dim=1)
    return fn, (randn(37, 53), randn(53))


@program("training", training=True)
def training():
    model = nn.Sequential(nn.Linear(32, 64), nn.GELU(), nn.Linear(64, 1)).to(CUDA)

    def fn(x, target):
        model.zero_grad(set_to_none=True)
        loss = F.binary_cross_entropy_with_logits(model(x).squeeze(-1), target)
        loss.backward()
        return loss.detach(), model[0].weight.grad.clone()
    return fn, (randn(16, 32), torch.rand(16, device=CUDA))


@program("graph_break")
def graph_break():
    def fn(x):
        y = torch.sin(x) * 2
        torch._dynamo.graph_break()
        return torch.cos(y) + 1
    return fn, (randn(128),)


@program("conv_bn")
def conv_bn():
    model = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU()).to(CUDA)
    model.eval()
    return model, (randn(2, 3, 16, 16),)


@program("mutation")
def mutation():
    def fn(x, idx, vals):
        x.add_(1)
        x.index_put_((idx,), vals, accumulate=True)
        return x * 2
    return fn, (randn(32), torch.randint(0, 32, (8,), device=CUDA), randn(8))


@program("scan_argmax")
def scan_argmax():
    def fn(x):
        return torch.cumsum(x, dim=1), torch.argmax(x, dim=1)
    return fn, (randn(8, 300),)


@program("cond")
def cond():
    def fn(pred, x):
        return torch.cond(pred, lambda t: t.cos(), lambda t: t.sin(), (x,)) + 1
    return fn, (torch.tensor(True, device=CUDA), randn(16))


@program("nested_cond")
def nested_cond():
    def fn(p, q, x):
        def outer_true(q, t):
            return torch.cond(q, lambda u: u.cos(), lambda u: u.sin(), (t,))
        return torch.cond(p, outer_true, lambda q, t: t * 2, (q, x)) + 1
    return fn, (torch.tensor(True, device=CUDA), torch.tensor(False, device=CUDA), randn(16))


@program("while_loop")
def while_loop():
    from torch._higher_order_ops.while_loop import while_loop as loop

    def fn(i, x, y):
        # y is not carried: the loop gets it as an additional input.
        n, out = loop(lambda i, t: i < 5, lambda i, t: (i + 1, t * 0.5 + y), (i, x))
        return n, out.sin()
    return fn, (torch.tensor(0, device=CUDA), randn(8, 32), randn(8, 32))


@program("while_loop_cond_in_body")
def while_loop_cond_in_body():
    from torch._higher_order_ops.while_loop import while_loop as loop

    def fn(i, x):
        def body(i, t):
            t = torch.cond(t.sum() > 0, lambda u: u - 1.0, lambda u: u + 2.0, (t,))
            return i + 1, t
        return loop(lambda i, t: i < 3, body, (i, x))[1]
    return fn, (torch.tensor(0, device=CUDA), randn(64))


@program("nested_compile_region")
def nested_compile_region():
    @torch.compiler.nested_compile_region
    def layer(x, w):
        return torch.relu(x @ w) * 2 + 1

    def fn(x, w1, w2):
        # One subgraph, invoked twice.
        return layer(layer(x, w1), w2).sin()
    return fn, (randn(8, 16), randn(16, 16), randn(16, 16))


@program("transformer_block")
def transformer_block():
    layer = nn.TransformerEncoderLayer(64, 4, 128, dropout=0.0, batch_first=True).to(CUDA)
    layer.eval()
    return layer, (randn(2, 16, 64),)


@program("deep_residual_mlp")
def deep_residual_mlp():
    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.norm = nn.LayerNorm(64)
            self.fc = nn.Linear(64, 64)

        def forward(self, x):
            return x + torch.tanh(self.fc(self.norm(x))) * 0.5
    model = nn.Sequential(*[Block() for _ in range(160)]).to(CUDA)
    model.eval()
    return model, (randn(8, 64),)


@program("cat_views")
def cat_views():
    def fn(x, y):
        a = x - 2
        b = y.sum(0, keepdim=True)
        c = torch.cat((a, b)).clone()
        return a, b, c
    return fn, (randn(4, 8), randn(3, 8))


@program("scatter_fallbacks")
def scatter_fallbacks():
    def fn(x, index, src):
        out = torch.zeros_like(x).scatter_reduce(0, index, src, reduce="amax", include_self=False)
        return out + 1
    return fn, (randn(16), torch.randint(0, 16, (32,), device=CUDA), randn(32))


@program("duplicate_inputs")
def duplicate_inputs():
    def fn(a, b):
        return a + b
    t = randn(64)
    return fn, (t, t)


@program("item_scalar")
def item_scalar():
    def fn(x):
        return x * x[1].item()
    return fn, (randn(8),)


@program("user_triton_kernel")
def user_triton_kernel():
    import triton
    import triton.language as tl

    @triton.jit
    def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
        offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offsets < n
        tl.store(out_ptr + offsets, tl.load(x_ptr + offsets, mask) + tl.load(y_ptr + offsets, mask),
                 mask)

    def fn(x, y):
        out = torch.empty_like(x)
        add_kernel[(triton.cdiv(x.numel(), 64),)](x, y, out, x.numel(), BLOCK=64)
        return out * 2
    return fn, (randn(1000), randn(1000))


@program("output_slice_view")
def output_slice_view():
    def fn(x):
        return x[0:2:2].T[3:].squeeze(0)
    return fn, (randn(4, 8),)


@program("extern_multi_output")
def extern_multi_output():
    def fn(x):
        values, indices = torch.sort(x, dim=-1)
        return values * 2, indices + 1
    return fn, (randn(4, 32),)


@program("nonzero_indices", data_dependent=True)
def nonzero_indices():
    def fn(x):
        return torch.nonzero(x > 0) * 2
    return fn, (randn(6, 5),)


@program("masked_select", data_dependent=True)
def masked_select():
    def fn(x):
        y = x[x > 0.5]
        return y.sin() + 1, (y * y).sum()
    return fn, (randn(100),)


@program("item_size", data_dependent=True)
def item_size():
    def fn(x, n):
        k = n.item()
        torch._check(k >= 0)
        torch._check(k <= 64)
        return torch.arange(k, device=x.device, dtype=x.dtype) + x[:k].sum()
    return fn, (randn(64), torch.tensor(9, device=CUDA))


@program("item_bool", data_dependent=True)
def item_bool():
    def fn(x):
        return x * x.sum().gt(0).item()
    return fn, (randn(8),)
