# Writes OUTPUT: a C++ file holding INPUT (explanations/topdown_nodes.json) as
# one string, so the library needs no data file at run time. Run with cmake -P.
# The sibling of embed_definitions.cmake, which globs a folder of CPU files.
file(READ "${INPUT}" text)
# A raw string ends at its delimiter; text containing it would end it early.
if(text MATCHES "\\)tdnodes\"")
  message(FATAL_ERROR "${INPUT} contains )tdnodes\", which ends the embedded string")
endif()
set(body "// Generated from runtime/uarch/explanations/topdown_nodes.json; do not edit.\n")
string(APPEND body "#include \"runtime/uarch/explanation_table.h\"\n\nnamespace td {\n\n")
string(APPEND body "std::string_view EmbeddedExplanationTableText() {\n")
string(APPEND body "  return R\"tdnodes(${text})tdnodes\";\n}\n\n}  // namespace td\n")
file(WRITE "${OUTPUT}.tmp" "${body}")
execute_process(COMMAND ${CMAKE_COMMAND} -E copy_if_different "${OUTPUT}.tmp" "${OUTPUT}")
