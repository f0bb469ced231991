//===- AtenSchemaTest.cpp - aten function schema parser -------------------===//
#include "wirc/emit/AtenSchema.h"

#include <catch2/catch.hpp>

using namespace wirc::emit;

TEST_CASE("aten schemas: names, overloads, defaults and returns", "[schema]") {
  FunctionSchema s = parseFunctionSchema(
      "aten::topk(Tensor self, SymInt k, int dim=-1, bool largest=True, bool sorted=True) -> "
      "(Tensor values, Tensor indices)");
  CHECK(s.ns == "aten");
  CHECK(s.name == "topk");
  CHECK(s.overload.empty());
  CHECK(s.unambiguousName() == "topk");
  REQUIRE(s.arguments.size() == 5);
  CHECK(s.arguments[1].type.isBase("SymInt"));
  CHECK(s.arguments[1].name == "k");
  CHECK_FALSE(s.arguments[1].defaultValue);
  REQUIRE(s.arguments[2].defaultValue);
  CHECK(s.arguments[2].defaultValue->kind == SchemaDefault::Kind::Int);
  CHECK(s.arguments[2].defaultValue->intValue == -1);
  CHECK(s.arguments[3].defaultValue->kind == SchemaDefault::Kind::Bool);
  CHECK(s.arguments[3].defaultValue->boolValue);
  REQUIRE(s.returns.size() == 2);
  CHECK(s.returns[0].isBase("Tensor"));
  CHECK_FALSE(s.isOutFn());
}

TEST_CASE("aten schemas: out= overloads, keyword-only and written arguments", "[schema]") {
  FunctionSchema s = parseFunctionSchema(
      "aten::addmm.out(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1, "
      "Tensor(a!) out) -> Tensor(a!)");
  CHECK(s.overload == "out");
  CHECK(s.unambiguousName() == "addmm_out");
  REQUIRE(s.arguments.size() == 6);
  CHECK_FALSE(s.arguments[2].kwargOnly);
  CHECK(s.arguments[3].kwargOnly);
  CHECK_FALSE(s.arguments[3].isWrite);
  CHECK(s.arguments[5].isWrite);
  CHECK(s.isOutFn());

  FunctionSchema inPlace = parseFunctionSchema(
      "aten::scatter_reduce_.two(Tensor(a!) self, int dim, Tensor index, Tensor src, str reduce, "
      "*, bool include_self=True) -> Tensor(a!)");
  CHECK(inPlace.unambiguousName() == "scatter_reduce__two");
  CHECK(inPlace.arguments[0].isWrite);
  CHECK_FALSE(inPlace.isOutFn()); // written, but not keyword-only
}

TEST_CASE("aten schemas: optional and list types", "[schema]") {
  FunctionSchema s = parseFunctionSchema(
      "aten::index_put(Tensor self, Tensor?[] indices, Tensor values, bool accumulate=False) -> "
      "Tensor");
  const SchemaType &indices = s.arguments[1].type;
  REQUIRE(indices.isList());
  REQUIRE(indices.elem->isOptional());
  CHECK(indices.elem->elem->isBase("Tensor"));
  CHECK(indices.str() == "Tensor?[]");

  FunctionSchema conv = parseFunctionSchema(
      "aten::foo(int[2] stride=1, SymInt[]? sizes=None, float eps=1e-05, float p=0., "
      "str mode='mean', int[] dims=[0, -1], MemoryFormat? memory_format=contiguous_format) -> ()");
  REQUIRE(conv.arguments.size() == 7);
  CHECK(conv.arguments[0].type.fixedSize == 2);
  CHECK(conv.arguments[0].defaultValue->intValue == 1);
  CHECK(conv.arguments[1].type.str() == "SymInt[]?");
  CHECK(conv.arguments[1].defaultValue->kind == SchemaDefault::Kind::None);
  CHECK(conv.arguments[2].defaultValue->kind == SchemaDefault::Kind::Double);
  CHECK(conv.arguments[2].defaultValue->doubleValue == Approx(1e-05));
  CHECK(conv.arguments[3].defaultValue->doubleValue == 0.0);
  CHECK(conv.arguments[4].defaultValue->text == "mean");
  REQUIRE(conv.arguments[5].defaultValue->items.size() == 2);
  CHECK(conv.arguments[5].defaultValue->items[1].intValue == -1);
  CHECK(conv.arguments[6].defaultValue->kind == SchemaDefault::Kind::Identifier);
  CHECK(conv.arguments[6].defaultValue->text == "contiguous_format");
  CHECK(conv.returns.empty());
}

TEST_CASE("aten schemas: malformed text is an error saying where", "[schema]") {
  for (const char *bad : {"", "aten", "aten::", "aten::f(", "aten::f(Tensor) -> Tensor",
                          "aten::f(Tensor x -> Tensor", "aten::f(Tensor x) Tensor",
                          "aten::f(Tensor x=) -> Tensor", "aten::f(int[x] a) -> ()",
                          "aten::f(Tensor x) -> Tensor trailing junk", "aten::f(Tensor(a x) -> ()",
                          "aten::f(str s=\"open) -> ()"}) {
    INFO(bad);
    CHECK_THROWS_AS(parseFunctionSchema(bad), SchemaError);
  }
  CHECK_THROWS_WITH(parseFunctionSchema("aten::f(Tensor x) Tensor"),
                    Catch::Contains("expected '->'"));
}
