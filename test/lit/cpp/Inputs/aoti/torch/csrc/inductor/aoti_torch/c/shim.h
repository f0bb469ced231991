// Compile-test stand-in for PyTorch's AOTI C shim (torch 2.11,
// torch/csrc/inductor/aoti_torch/c/shim.h): declarations of the functions
// wirc's --cpp-abi=aoti wrappers call, with the shim's signatures, so the
// emitted C++ is type-checked without libtorch. Builds against a real torch
// use its headers instead (-I<torch>/include).
#ifndef WIRC_TEST_AOTI_SHIM_H
#define WIRC_TEST_AOTI_SHIM_H
#include <cstddef>
#include <cstdint>

extern "C" {
using AOTITorchError = int32_t;
#define AOTI_TORCH_SUCCESS 0
#define AOTI_TORCH_FAILURE 1
struct AtenTensorOpaque;
using AtenTensorHandle = AtenTensorOpaque *;
struct AtenGeneratorOpaque;
using AtenGeneratorHandle = AtenGeneratorOpaque *;

int32_t aoti_torch_device_type_cpu();
int32_t aoti_torch_device_type_cuda();
int32_t aoti_torch_dtype_float8_e5m2();
int32_t aoti_torch_dtype_float8_e4m3fn();
int32_t aoti_torch_dtype_bfloat16();
int32_t aoti_torch_dtype_float16();
int32_t aoti_torch_dtype_float32();
int32_t aoti_torch_dtype_float64();
int32_t aoti_torch_dtype_uint8();
int32_t aoti_torch_dtype_uint16();
int32_t aoti_torch_dtype_uint32();
int32_t aoti_torch_dtype_uint64();
int32_t aoti_torch_dtype_int8();
int32_t aoti_torch_dtype_int16();
int32_t aoti_torch_dtype_int32();
int32_t aoti_torch_dtype_int64();
int32_t aoti_torch_dtype_bool();
int32_t aoti_torch_dtype_complex64();
int32_t aoti_torch_dtype_complex128();
int32_t aoti_torch_layout_strided();
int32_t aoti_torch_memory_format_contiguous_format();
int32_t aoti_torch_memory_format_channels_last();
int32_t aoti_torch_memory_format_channels_last_3d();
int32_t aoti_torch_memory_format_preserve_format();

AOTITorchError aoti_torch_item_bool(AtenTensorHandle tensor, bool *ret_value);
AOTITorchError aoti_torch_scalar_to_tensor_float32(float value, AtenTensorHandle *ret);
AOTITorchError aoti_torch_scalar_to_tensor_float64(double value, AtenTensorHandle *ret);
AOTITorchError aoti_torch_scalar_to_tensor_uint8(uint8_t value, AtenTensorHandle *ret);
AOTITorchError aoti_torch_scalar_to_tensor_uint16(uint16_t value, AtenTensorHandle *ret);
AOTITorchError aoti_torch_scalar_to_tensor_uint32(uint32_t value, AtenTensorHandle *ret);
AOTITorchError aoti_torch_scalar_to_tensor_uint64(uint64_t value, AtenTensorHandle *ret);
AOTITorchError aoti_torch_scalar_to_tensor_int8(int8_t value, AtenTensorHandle *ret);
AOTITorchError aoti_torch_scalar_to_tensor_int16(int16_t value, AtenTensorHandle *ret);
AOTITorchError aoti_torch_scalar_to_tensor_int32(int32_t value, AtenTensorHandle *ret);
AOTITorchError aoti_torch_scalar_to_tensor_int64(int64_t value, AtenTensorHandle *ret);
AOTITorchError aoti_torch_scalar_to_tensor_bool(bool value, AtenTensorHandle *ret);
AOTITorchError aoti_torch_clone_preserve_strides(AtenTensorHandle self, AtenTensorHandle *ret);
AOTITorchError aoti_torch_delete_tensor_object(AtenTensorHandle tensor);
AOTITorchError aoti_torch_new_uninitialized_tensor(AtenTensorHandle *ret);
AOTITorchError aoti_torch_get_data_ptr(AtenTensorHandle tensor, void **ret_data_ptr);
AOTITorchError aoti_torch_get_dim(AtenTensorHandle tensor, int64_t *ret_dim);
AOTITorchError aoti_torch_get_sizes(AtenTensorHandle tensor, int64_t **ret_sizes);
AOTITorchError aoti_torch_get_strides(AtenTensorHandle tensor, int64_t **ret_strides);
AOTITorchError aoti_torch_get_storage_offset(AtenTensorHandle tensor,
                                             int64_t *ret_storage_offset);
AOTITorchError aoti_torch_new_tensor_handle(AtenTensorHandle orig_handle,
                                            AtenTensorHandle *new_handle);
AOTITorchError aoti_torch__alloc_from_pool(AtenTensorHandle self, int64_t offset_bytes,
                                           int32_t dtype, int64_t ndim, const int64_t *sizes_ptr,
                                           const int64_t *strides_ptr,
                                           AtenTensorHandle *ret_new_tensor);
AOTITorchError aoti_torch__reinterpret_tensor(AtenTensorHandle self, int64_t ndim,
                                              const int64_t *sizes_ptr,
                                              const int64_t *strides_ptr, int64_t storage_offset,
                                              AtenTensorHandle *ret_new_tensor);
AOTITorchError aoti_torch_copy_(AtenTensorHandle self, AtenTensorHandle src, int32_t non_blocking);
AOTITorchError aoti_torch_index_put_out(AtenTensorHandle out, AtenTensorHandle self,
                                        const AtenTensorHandle *indices,
                                        const uint32_t num_indices,
                                        const AtenTensorHandle values, bool accumulate);
AOTITorchError aoti_torch_empty_strided(int64_t ndim, const int64_t *sizes_ptr,
                                        const int64_t *strides_ptr, int32_t dtype,
                                        int32_t device_type, int32_t device_index,
                                        AtenTensorHandle *ret_new_tensor);
}
#endif
