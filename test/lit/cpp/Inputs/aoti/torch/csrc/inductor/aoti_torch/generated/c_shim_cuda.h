// Compile-test stand-in for PyTorch's generated CUDA C shim (torch 2.11,
// torch/csrc/inductor/aoti_torch/generated/c_shim_cuda.h): the functions the
// corpus's extern kernels and wirc's AOTI tests call, with torch's
// signatures.
#ifndef WIRC_TEST_AOTI_C_SHIM_CUDA_H
#define WIRC_TEST_AOTI_C_SHIM_CUDA_H
#include <torch/csrc/inductor/aoti_torch/c/shim.h>

extern "C" {
AOTITorchError aoti_torch_cuda__scaled_dot_product_efficient_attention(
    AtenTensorHandle query, AtenTensorHandle key, AtenTensorHandle value,
    AtenTensorHandle *attn_bias, int32_t compute_log_sumexp, double dropout_p, int32_t is_causal,
    double *scale, AtenTensorHandle *ret0, AtenTensorHandle *ret1, AtenTensorHandle *ret2,
    AtenTensorHandle *ret3);
AOTITorchError aoti_torch_cuda__scaled_dot_product_efficient_attention_backward(
    AtenTensorHandle grad_out_, AtenTensorHandle query, AtenTensorHandle key,
    AtenTensorHandle value, AtenTensorHandle attn_bias, AtenTensorHandle out,
    AtenTensorHandle logsumexp, AtenTensorHandle philox_seed, AtenTensorHandle philox_offset,
    double dropout_p, const int32_t *grad_input_mask, int64_t grad_input_mask_len_,
    int32_t is_causal, double *scale, AtenTensorHandle *ret0, AtenTensorHandle *ret1,
    AtenTensorHandle *ret2, AtenTensorHandle *ret3);
AOTITorchError aoti_torch_cuda_addmm_out(AtenTensorHandle out, AtenTensorHandle self,
                                         AtenTensorHandle mat1, AtenTensorHandle mat2, double beta,
                                         double alpha);
AOTITorchError aoti_torch_cuda_bmm_out(AtenTensorHandle out, AtenTensorHandle self,
                                       AtenTensorHandle mat2);
AOTITorchError aoti_torch_cuda_convolution(
    AtenTensorHandle input, AtenTensorHandle weight, AtenTensorHandle *bias,
    const int64_t *stride, int64_t stride_len_, const int64_t *padding, int64_t padding_len_,
    const int64_t *dilation, int64_t dilation_len_, int32_t transposed,
    const int64_t *output_padding, int64_t output_padding_len_, int64_t groups,
    AtenTensorHandle *ret0);
AOTITorchError aoti_torch_cuda_mm_out(AtenTensorHandle out, AtenTensorHandle self,
                                      AtenTensorHandle mat2);
AOTITorchError aoti_torch_cuda_scatter_reduce_two_out(AtenTensorHandle out, AtenTensorHandle self,
                                                      int64_t dim, AtenTensorHandle index,
                                                      AtenTensorHandle src, const char *reduce,
                                                      int32_t include_self);
AOTITorchError aoti_torch_cuda_topk(AtenTensorHandle self, int64_t k, int64_t dim, int32_t largest,
                                    int32_t sorted, AtenTensorHandle *ret0,
                                    AtenTensorHandle *ret1);
AOTITorchError aoti_torch_cuda_index_put(AtenTensorHandle self, const AtenTensorHandle **indices,
                                         int64_t indices_len_, AtenTensorHandle values,
                                         int32_t accumulate, AtenTensorHandle *ret0);
AOTITorchError aoti_torch_cuda_cumsum(AtenTensorHandle self, int64_t dim, int32_t *dtype,
                                      AtenTensorHandle *ret0);
AOTITorchError aoti_torch_cuda__fft_r2c(AtenTensorHandle self, const int64_t *dim, int64_t dim_len_, int64_t normalization, int32_t onesided, AtenTensorHandle *ret0);
AOTITorchError aoti_torch_cuda_nonzero(AtenTensorHandle self, AtenTensorHandle *ret0);
AOTITorchError aoti_torch_cuda_index_Tensor(AtenTensorHandle self, const AtenTensorHandle **indices, int64_t indices_len_, AtenTensorHandle *ret0);
AOTITorchError aoti_torch_cuda_abs(AtenTensorHandle self, AtenTensorHandle *ret0);
AOTITorchError aoti_torch_cuda_mul_Tensor(AtenTensorHandle self, AtenTensorHandle other, AtenTensorHandle *ret0);
}
#endif
