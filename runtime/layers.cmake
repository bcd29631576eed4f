# The runtime's stages, each a folder under runtime/ and a library of its own,
# with the stages each one may use; and the folders outside runtime/ that
# build on it (tools/, bindings/), with the stages whose entry points each may
# include. Include it and call td_check_layers(<source dir>): it stops with
# one line per problem when the declared graph has a cycle, when a folder is
# missing from it, when a file includes a header from a stage its own stage
# does not use (directly or through the stages it uses), when a tool or
# binding includes a stage's header that is not one of its entry points, or
# when anything includes upwards (runtime/ from tools/ or bindings/, one
# outer folder from the other). docs/design.md draws this graph.
cmake_policy(SET CMP0057 NEW)  # IN_LIST, also when run with -P
set(TD_RUNTIME_LAYERS base machine uarch counters regions recorded analysis job report driver)
set(TD_LAYER_USES_base "")
set(TD_LAYER_USES_machine base)
set(TD_LAYER_USES_uarch base)
set(TD_LAYER_USES_counters base machine uarch)
set(TD_LAYER_USES_regions base counters)
set(TD_LAYER_USES_recorded base machine counters regions)
set(TD_LAYER_USES_analysis base machine uarch recorded)
set(TD_LAYER_USES_job base machine uarch recorded analysis)
set(TD_LAYER_USES_report base machine uarch counters regions recorded analysis job)
set(TD_LAYER_USES_driver base machine uarch counters regions recorded analysis job report)

# What code outside runtime/ may include of each stage: the headers made to
# be called from outside. A stage's other headers are its own business
# (regions/ has none: only the driver's marker entry points reach it).
set(TD_STAGE_ENTRY_POINTS_base byte_strings.h json_file.h output_files.h status_macros.h text_format.h)
set(TD_STAGE_ENTRY_POINTS_machine bandwidth_calibration.h cache_geometry.h machine_info.h)
set(TD_STAGE_ENTRY_POINTS_uarch definitions.h perf_metrics_import.h)
set(TD_STAGE_ENTRY_POINTS_counters availability.h event_encoder.h event_selection.h papi_backend.h pmu_probe.h
    simulated_protocol.h)
set(TD_STAGE_ENTRY_POINTS_regions "")
set(TD_STAGE_ENTRY_POINTS_recorded call_time_summary.h merge_passes.h run_data.h run_file.h)
set(TD_STAGE_ENTRY_POINTS_analysis analysis_pipeline.h measurement_conditions.h perf_case.h run_analysis.h)
set(TD_STAGE_ENTRY_POINTS_job job_compare.h job_file.h job_loader.h job_view.h rank_summary_file.h)
set(TD_STAGE_ENTRY_POINTS_report analysis_json.h compare.h csv_report.h explanations.h html_report.h regression_gate.h
    report_pipeline.h text_report.h topdown_text.h)
set(TD_STAGE_ENTRY_POINTS_driver compat_api.h config.h mpi_api.h)

# The folders outside runtime/, and the stages whose entry points each may
# include. The SDK's public headers (td/…) are everyone's.
set(TD_OUTER_FOLDERS tools bindings)
set(TD_OUTER_USES_tools base machine uarch counters recorded analysis job report driver)
set(TD_OUTER_USES_bindings driver)

# Every stage `layer` may include from: itself and what it uses, transitively.
# Sets ${out} in the caller; a cycle through `layer` is an error.
function(td_layer_reach layer out)
  set(reach ${layer})
  set(frontier ${TD_LAYER_USES_${layer}})
  while(frontier)
    list(POP_FRONT frontier next)
    if(next STREQUAL layer)
      message(FATAL_ERROR "runtime stages: ${layer} uses itself through a cycle; fix runtime/layers.cmake")
    endif()
    if(NOT next IN_LIST reach)
      list(APPEND reach ${next})
      list(APPEND frontier ${TD_LAYER_USES_${next}})
    endif()
  endwhile()
  set(${out} ${reach} PARENT_SCOPE)
endfunction()

# An include line as td's files may write it: any spacing around the #, and
# quotes or angle brackets. INCLUDE_PATH_OF takes its path out.
set(TD_INCLUDE_LINE "^[ \t]*#[ \t]*include[ \t]*[\"<]")
set(TD_INCLUDE_PATH_OF "^[ \t]*#[ \t]*include[ \t]*[\"<]([^\">]+)[\">].*")

# Appends to the caller's list named by `out` the includes of `file` (shown
# as `shown`), a file of the outer folder `outer`, that break its rows.
function(td_outer_includes file shown outer out)
  set(found ${${out}})
  file(STRINGS ${file} includes REGEX "${TD_INCLUDE_LINE}(runtime|tools|bindings)/")
  foreach(line ${includes})
    string(REGEX REPLACE "${TD_INCLUDE_PATH_OF}" "\\1" path "${line}")
    string(REGEX REPLACE "/.*" "" top "${path}")
    if(top STREQUAL "runtime")
      string(REGEX REPLACE "^runtime/([a-z_]+)/.*" "\\1" stage "${path}")
      get_filename_component(header "${path}" NAME)
      if(NOT stage IN_LIST TD_OUTER_USES_${outer})
        list(APPEND found "${shown} includes from runtime/${stage}/, which ${outer}/ does not use")
      elseif(NOT header IN_LIST TD_STAGE_ENTRY_POINTS_${stage})
        list(APPEND found "${shown} includes ${path}, which is not an entry point of runtime/${stage}/")
      endif()
    elseif(NOT top STREQUAL outer)
      list(APPEND found "${shown} includes from ${top}/, which ${outer}/ does not use")
    endif()
  endforeach()
  set(${out} ${found} PARENT_SCOPE)
endfunction()

function(td_check_layers source_dir)
  set(runtime_dir ${source_dir}/runtime)
  set(problems "")
  file(GLOB folders LIST_DIRECTORIES true RELATIVE ${runtime_dir} ${runtime_dir}/*)
  foreach(folder ${folders})
    if(IS_DIRECTORY ${runtime_dir}/${folder} AND NOT folder IN_LIST TD_RUNTIME_LAYERS)
      list(APPEND problems "runtime/${folder}/ is not a stage in runtime/layers.cmake")
    endif()
  endforeach()
  foreach(layer ${TD_RUNTIME_LAYERS})
    foreach(used ${TD_LAYER_USES_${layer}})
      if(NOT used IN_LIST TD_RUNTIME_LAYERS)
        list(APPEND problems "${layer} uses ${used}, which is not a stage")
      endif()
    endforeach()
    td_layer_reach(${layer} reach)
    file(GLOB_RECURSE sources ${runtime_dir}/${layer}/*.h ${runtime_dir}/${layer}/*.c ${runtime_dir}/${layer}/*.cc
         ${runtime_dir}/${layer}/*.inc)
    foreach(source ${sources})
      file(RELATIVE_PATH shown ${source_dir} ${source})
      file(STRINGS ${source} includes REGEX "${TD_INCLUDE_LINE}(runtime/[a-z_]+|tools|bindings)/")
      foreach(line ${includes})
        string(REGEX REPLACE "${TD_INCLUDE_PATH_OF}" "\\1" path "${line}")
        if(path MATCHES "^(tools|bindings)/")
          list(APPEND problems "${shown} includes from ${CMAKE_MATCH_1}/, which builds on the runtime")
          continue()
        endif()
        string(REGEX REPLACE "^runtime/([a-z_]+)/.*" "\\1" target "${path}")
        if(NOT target IN_LIST reach)
          list(APPEND problems "${shown} includes from ${target}/, which ${layer}/ does not use")
        endif()
      endforeach()
    endforeach()
  endforeach()
  foreach(outer ${TD_OUTER_FOLDERS})
    foreach(used ${TD_OUTER_USES_${outer}})
      if(NOT used IN_LIST TD_RUNTIME_LAYERS)
        list(APPEND problems "${outer} uses ${used}, which is not a stage")
      endif()
    endforeach()
    file(GLOB_RECURSE sources ${source_dir}/${outer}/*.h ${source_dir}/${outer}/*.c ${source_dir}/${outer}/*.cc
         ${source_dir}/${outer}/*.inc)
    foreach(source ${sources})
      file(RELATIVE_PATH shown ${source_dir} ${source})
      td_outer_includes(${source} ${shown} ${outer} problems)
    endforeach()
  endforeach()
  if(problems)
    list(JOIN problems "\n  " text)
    message(FATAL_ERROR "td's folders depend one way (runtime/layers.cmake):\n  ${text}")
  endif()
endfunction()

# cmake -DSOURCE_DIR=<dir> -P layers.cmake runs the check alone (the test).
if(CMAKE_SCRIPT_MODE_FILE AND DEFINED SOURCE_DIR)
  get_filename_component(SOURCE_DIR "${SOURCE_DIR}" ABSOLUTE)  # "." too
  td_check_layers(${SOURCE_DIR})
  message(STATUS "td's folders: every include follows runtime/layers.cmake")
endif()
