# Writes OUTPUT, a source defining kattn::cli::build_values::git_describe as `git describe --always --dirty` of
# SOURCE_DIR ("unknown" without git), only when the text changes: run at every build, so the
# binary names the tree it was built from and an unchanged tree recompiles nothing.
set(describe "unknown")
find_package(Git QUIET)
if(GIT_FOUND)
  execute_process(COMMAND ${GIT_EXECUTABLE} describe --always --dirty WORKING_DIRECTORY ${SOURCE_DIR}
                  OUTPUT_VARIABLE out RESULT_VARIABLE failed OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(NOT failed AND out)
    set(describe "${out}")
  endif()
endif()
set(text "// Generated at build time by cmake/git_describe.cmake.\nnamespace kattn::cli::build_values {\nextern const char git_describe[] = \"${describe}\";\n}\n")
set(old "")
if(EXISTS ${OUTPUT})
  file(READ ${OUTPUT} old)
endif()
if(NOT old STREQUAL text)
  file(WRITE ${OUTPUT} "${text}")
endif()
