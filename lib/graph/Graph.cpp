//===- Graph.cpp ----------------------------------------------------------===//
#include "wirc/graph/Graph.h"

#include <algorithm>
#include <array>
#include <charconv>

#include <fmt/format.h>

namespace wirc::graph {

// A large graph holds millions of nodes and kernel arguments: a member that
// makes the common kinds larger belongs out of line (support/OutOfLine.h).
static_assert(sizeof(Node) <= 160, "graph nodes grew");
static_assert(sizeof(KernelArg) <= 128, "kernel arguments grew");

namespace {
struct DTypeInfo {
  DType dtype;
  std::string_view name;
  unsigned size;
};
constexpr std::array<DTypeInfo, 17> kDTypes = {{
    {DType::Bool, "bool", 1},
    {DType::UInt8, "uint8", 1},
    {DType::Int8, "int8", 1},
    {DType::Int16, "int16", 2},
    {DType::Int32, "int32", 4},
    {DType::Int64, "int64", 8},
    {DType::UInt16, "uint16", 2},
    {DType::UInt32, "uint32", 4},
    {DType::UInt64, "uint64", 8},
    {DType::Float16, "float16", 2},
    {DType::BFloat16, "bfloat16", 2},
    {DType::Float32, "float32", 4},
    {DType::Float64, "float64", 8},
    {DType::Complex64, "complex64", 8},
    {DType::Complex128, "complex128", 16},
    {DType::Float8E4M3FN, "float8_e4m3fn", 1},
    {DType::Float8E5M2, "float8_e5m2", 1},
}};

constexpr std::array<std::string_view, 11> kGridTypes = {
    "Grid1D",       "Grid2D",          "Grid3D",
    "Grid2DWithYZOverflow", "CooperativeReductionGrid", "SplitScanGrid",
    "FixedGrid",    "PrecomputedGrid", "BatchMatmulGrid3D",
    "SequentialComboKernelGrid", "RoundRobinComboKernelGrid"};
} // namespace

std::string_view dtypeName(DType dtype) { return kDTypes[static_cast<size_t>(dtype)].name; }
unsigned dtypeSize(DType dtype) { return kDTypes[static_cast<size_t>(dtype)].size; }

std::optional<DType> parseDType(std::string_view name) {
  for (const DTypeInfo &info : kDTypes)
    if (info.name == name)
      return info.dtype;
  return std::nullopt;
}

std::string deviceName(const Device &device) {
  if (device.kind == Device::Kind::CPU)
    return "cpu";
  return fmt::format("cuda:{}", device.index);
}

std::optional<Device> parseDevice(std::string_view text) {
  if (text == "cpu")
    return Device{Device::Kind::CPU, 0};
  constexpr std::string_view prefix = "cuda:";
  if (!text.starts_with(prefix))
    return std::nullopt;
  std::string_view digits = text.substr(prefix.size());
  if (digits.empty() || digits.size() > 4 || (digits.size() > 1 && digits[0] == '0'))
    return std::nullopt;
  int index = 0;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), index);
  if (ec != std::errc() || end != digits.data() + digits.size())
    return std::nullopt;
  return Device{Device::Kind::CUDA, index};
}

std::string_view kernelLanguageName(KernelLanguage language) {
  switch (language) {
  case KernelLanguage::Triton:
    return "triton";
  case KernelLanguage::PTX:
    return "ptx";
  case KernelLanguage::CUDA:
    return "cuda";
  case KernelLanguage::LLVM:
    return "llvm";
  case KernelLanguage::Cpp:
    return "cpp";
  }
  return "triton";
}

std::string_view gridTypeName(GridType type) { return kGridTypes[static_cast<size_t>(type)]; }

std::optional<GridType> parseGridType(std::string_view name) {
  for (size_t i = 0; i < kGridTypes.size(); ++i)
    if (kGridTypes[i] == name)
      return static_cast<GridType>(i);
  return std::nullopt;
}

std::string_view argRoleName(ArgRole role) {
  switch (role) {
  case ArgRole::Input:
    return "input";
  case ArgRole::Output:
    return "output";
  case ArgRole::InOut:
    return "in_out";
  case ArgRole::Removed:
    return "removed";
  case ArgRole::Size:
    return "size";
  case ArgRole::Scalar:
    return "scalar";
  }
  return "input";
}

bool isIntegral(DType dtype) {
  switch (dtype) {
  case DType::Bool:
  case DType::UInt8:
  case DType::Int8:
  case DType::Int16:
  case DType::Int32:
  case DType::Int64:
  case DType::UInt16:
  case DType::UInt32:
  case DType::UInt64:
    return true;
  default:
    return false;
  }
}

std::string_view bindReadName(BindSymbolNode::Read read) {
  switch (read) {
  case BindSymbolNode::Read::Size:
    return "size";
  case BindSymbolNode::Read::Stride:
    return "stride";
  case BindSymbolNode::Read::StorageOffset:
    return "storage_offset";
  case BindSymbolNode::Read::Item:
    return "item";
  case BindSymbolNode::Read::Expr:
    return "expr";
  }
  return "size";
}

std::string_view compareOperatorName(Compare cmp) {
  static constexpr std::string_view kNames[] = {"eq", "ne", "lt", "le", "gt", "ge"};
  return kNames[static_cast<size_t>(cmp)];
}

std::string_view compareSpelling(Compare cmp) {
  switch (cmp) {
  case Compare::EQ:
    return "==";
  case Compare::NE:
    return "!=";
  case Compare::LT:
    return "<";
  case Compare::LE:
    return "<=";
  case Compare::GT:
    return ">";
  case Compare::GE:
    return ">=";
  }
  return "==";
}

std::optional<int64_t> KernelConfig::kwarg(std::string_view name) const {
  for (const auto &[key, value] : kwargs)
    if (key == name)
      return value;
  return std::nullopt;
}

const Kernel *Document::findKernel(std::string_view name) const {
  auto it = kernelIndex.find(name);
  return it == kernelIndex.end() ? nullptr : &kernels[it->second];
}

const Graph *Document::findSubgraph(std::string_view name) const {
  if (!subgraphIndex.empty()) {
    auto it = subgraphIndex.find(name);
    return it == subgraphIndex.end() ? nullptr : &subgraphs[it->second];
  }
  for (const Graph &graph : subgraphs)
    if (graph.name == name)
      return &graph;
  return nullptr;
}

sym::SymbolValues Document::hints() const {
  sym::SymbolValues values;
  for (const Symbol &symbol : main.symbols)
    values.emplace(symbol.name, symbol.hint);
  return values;
}

bool isTritonScalarType(std::string_view type) {
  static constexpr std::string_view kScalars[] = {"i1", "i8",  "i16", "i32",  "i64",  "u1",  "u8",
                                                  "u16", "u32", "u64", "fp16", "bf16", "fp32", "fp64"};
  return std::find(std::begin(kScalars), std::end(kScalars), type) != std::end(kScalars);
}

} // namespace wirc::graph
