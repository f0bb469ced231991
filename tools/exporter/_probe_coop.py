import torch, torch._inductor.config as config, sys
config.triton.cooperative_reductions = True
config.triton.force_cooperative_reductions = True
from torch._inductor.utils import run_and_get_code
def fn(x): return x.sum(), (x * x).mean(0)
x = torch.randn(4096, 64, device="cuda")
_, codes = run_and_get_code(torch.compile(fn), x)
print(codes[0])
torch._dynamo.reset()
config.triton.cooperative_reductions = False
config.triton.force_cooperative_reductions = False
def g(x): return torch.cumsum(x, 0) * 0.5
_, codes = run_and_get_code(torch.compile(g), torch.randn(1 << 20, device="cuda"))
print("=====SCAN"); print(codes[0])
