# The sanitizer and fuzzing build (-DMFA_SANITIZE=ON, see scripts/sanitize.sh).
#
# libmfa.so is built with AddressSanitizer (LeakSanitizer included) and
# libFuzzer's coverage instrumentation in the Swift code; the ASan runtime is
# not linked into the library but comes with each program. The programs are
# C, built with the Swift toolchain's clang (-DCMAKE_C_COMPILER=.../clang):
#   fuzz_<target>   the libFuzzer targets in fuzz/ (ASan + UBSan + libFuzzer)
#   san_<test>      the fast C tests and the C demos under ASan + UBSan
# The sanitizer tests are registered with CTest (label "sanitize"); the fuzz
# targets are run by scripts/fuzz.sh and bench/fuzz.sh. Configure with
# -DMFA_BUILD_TESTS=OFF: the ordinary tests (gcc builds among them) cannot
# link against an instrumented library.
if(MFA_BUILD_TESTS)
  message(FATAL_ERROR "MFA_SANITIZE=ON needs -DMFA_BUILD_TESTS=OFF")
endif()
if(NOT CMAKE_C_COMPILER_ID MATCHES "Clang")
  message(FATAL_ERROR "MFA_SANITIZE=ON needs clang (the Swift toolchain's) as the C compiler")
endif()

# Swift: ASan and edge coverage with comparison tracing (what -sanitize=fuzzer
# turns on when compiling); linking only names ASan, so that libFuzzer and the
# ASan runtime come once, with the program.
# C: ASan and UBSan, every UBSan finding fatal, frame pointers for readable stacks.
# With MFA_FUZZ_COVERAGE=ON (bench/fuzz.sh --coverage), source-based coverage
# instead of the sanitizers: the fuzz targets then replay a corpus and
# llvm-cov reports which lines of Sources/ it reaches.
option(MFA_FUZZ_COVERAGE "With MFA_SANITIZE: source-based coverage instead of ASan/UBSan" OFF)
if(MFA_FUZZ_COVERAGE)
  # Counters relocated at run time let the profile runtime keep them in the
  # profile file as they change (LLVM_PROFILE_FILE with %c): an input that
  # crashes loses nothing.
  set(MFA_SANITIZE_SWIFT_FLAGS -profile-generate -profile-coverage-mapping -sanitize=fuzzer
    -Xllvm -runtime-counter-relocation)
  set(MFA_SANITIZE_SWIFT_LINK_FLAGS -profile-generate -use-ld=lld)
  set(MFA_SANITIZE_C_FLAGS -fprofile-instr-generate -fcoverage-mapping -g)
  set(MFA_SANITIZE_C_COMPILE_ONLY -mllvm -runtime-counter-relocation)
else()
  set(MFA_SANITIZE_SWIFT_FLAGS -sanitize=address -sanitize=fuzzer)
  set(MFA_SANITIZE_SWIFT_LINK_FLAGS -sanitize=address -use-ld=lld)
  set(MFA_SANITIZE_C_FLAGS -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer -g)
endif()
foreach(target MFACore mfa)
  target_compile_options(${target} PRIVATE ${MFA_SANITIZE_SWIFT_FLAGS})
endforeach()
target_link_options(mfa PRIVATE ${MFA_SANITIZE_SWIFT_LINK_FLAGS})
set(MFA_SANITIZE_LINK_FLAGS ${MFA_SANITIZE_C_FLAGS} -fuse-ld=lld)
set(MFA_SANITIZE_STRICT_C -std=c99 -Wall -Wextra -pedantic -Werror)

# The C demos of the ordinary build, instrumented.
foreach(example totp_demo mfa_demo)
  target_compile_options(${example} PRIVATE ${MFA_SANITIZE_C_FLAGS} ${MFA_SANITIZE_C_COMPILE_ONLY})
  target_link_options(${example} PRIVATE ${MFA_SANITIZE_LINK_FLAGS})
endforeach()

# The fuzz targets: one C file each in fuzz/, sharing fuzz/fuzz_support.h.
file(GLOB MFA_FUZZ_SOURCES CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/fuzz/fuzz_*.c)
foreach(source ${MFA_FUZZ_SOURCES})
  get_filename_component(name ${source} NAME_WE)
  add_executable(${name} ${source})
  target_link_libraries(${name} PRIVATE mfa)
  if(name MATCHES "webauthn")  # its harness signs and hashes with libsodium, to check libmfa's verdicts
    target_link_libraries(${name} PRIVATE PkgConfig::SODIUM)
  endif()
  if(name MATCHES "yubico")  # its software YubiKey seals OTPs with nettle's AES (Tests/c/test_yubikey.h)
    target_link_libraries(${name} PRIVATE PkgConfig::NETTLE)
  endif()
  target_compile_options(${name} PRIVATE -fsanitize=fuzzer ${MFA_SANITIZE_C_FLAGS} ${MFA_SANITIZE_C_COMPILE_ONLY}
    ${MFA_SANITIZE_STRICT_C})
  target_link_options(${name} PRIVATE -fsanitize=fuzzer ${MFA_SANITIZE_LINK_FLAGS})
endforeach()

# The fast C tests (not the 1,000-round race and crash tests, nor engine_key_memory,
# which reads the whole of its own memory: ASan's shadow too) under ASan + UBSan,
# and the demos: the C ones instrumented, the Python one with the ASan runtime
# preloaded (leak checks off there: CPython keeps memory until exit by design).
enable_testing()
find_package(Python3 REQUIRED COMPONENTS Interpreter)
execute_process(COMMAND ${CMAKE_C_COMPILER} -print-file-name=libclang_rt.asan-x86_64.so
  OUTPUT_VARIABLE MFA_ASAN_RUNTIME OUTPUT_STRIP_TRAILING_WHITESPACE)
set(MFA_VECTORS ${PROJECT_SOURCE_DIR}/Tests/vectors/otp_vectors.txt)
set(MFA_SANITIZE_ENGINE_TESTS config prerequisites totp_enroll phone_enroll app_verification sign_in_totp
    sign_in_phone unenroll backoff sms_limits test_numbers audit at_rest key_rotation random imports recovery_codes
    bad_input phone_bad_input generic_bad_input flow_contract hardening webauthn webauthn_passkeys admin admin_imports
    admin_keys email devices)
set(MFA_SANITIZE_TESTS mfa sanitizer_control)
foreach(flow ${MFA_SANITIZE_ENGINE_TESTS})
  list(APPEND MFA_SANITIZE_TESTS engine_${flow})
endforeach()
foreach(name ${MFA_SANITIZE_TESTS})
  set(source ${PROJECT_SOURCE_DIR}/Tests/c/test_${name}.c)
  if(name STREQUAL sanitizer_control)
    set(source ${PROJECT_SOURCE_DIR}/Tests/c/sanitizer_control.c)
  endif()
  add_executable(san_${name} ${source})
  target_link_libraries(san_${name} PRIVATE mfa)
  target_compile_options(san_${name} PRIVATE ${MFA_SANITIZE_C_FLAGS} ${MFA_SANITIZE_C_COMPILE_ONLY}
    ${MFA_SANITIZE_STRICT_C})
  target_link_options(san_${name} PRIVATE ${MFA_SANITIZE_LINK_FLAGS})
endforeach()
# The flow contract and the admin tests open their store through test_pg_store.h
# (libpq); the flow contract signs WebAuthn answers with libsodium and makes
# YubiKey OTPs with nettle's AES (test_yubikey.h); the hardening and key tests
# write to an SQLite file behind libmfa's back.
foreach(name engine_flow_contract engine_admin engine_admin_imports engine_admin_keys engine_webauthn_passkeys)
  target_include_directories(san_${name} PRIVATE ${PQ_INCLUDE_DIRS})
  target_link_libraries(san_${name} PRIVATE ${PQ_LINK_LIBRARIES})
endforeach()
target_link_libraries(san_engine_flow_contract PRIVATE PkgConfig::SODIUM PkgConfig::NETTLE)
target_link_libraries(san_engine_hardening PRIVATE PkgConfig::SQLITE)
target_link_libraries(san_engine_admin_keys PRIVATE PkgConfig::SQLITE)
# The WebAuthn tests' software authenticator signs with libsodium (test_webauthn_authenticator.h).
target_link_libraries(san_engine_webauthn PRIVATE PkgConfig::SODIUM)
target_link_libraries(san_engine_webauthn_passkeys PRIVATE PkgConfig::SODIUM)
add_test(NAME san_c_api COMMAND san_mfa ${MFA_VECTORS})
set(MFA_SANITIZE_ENGINE_NAMES "")
foreach(flow ${MFA_SANITIZE_ENGINE_TESTS})
  add_test(NAME san_engine_${flow} COMMAND san_engine_${flow})
  list(APPEND MFA_SANITIZE_ENGINE_NAMES san_engine_${flow})
endforeach()
add_test(NAME san_python_mfa_demo COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/examples/python/mfa_demo.py)
add_test(NAME san_totp_demo COMMAND totp_demo)
set_tests_properties(san_totp_demo PROPERTIES PASS_REGULAR_EXPRESSION "verified: time step")
add_test(NAME san_mfa_demo
  COMMAND mfa_demo ${PROJECT_BINARY_DIR}/san-demo.sqlite ${PROJECT_BINARY_DIR}/san-demo-outbox.jsonl)
set_tests_properties(san_mfa_demo PROPERTIES PASS_REGULAR_EXPRESSION "\ndone\n")
# Every finding fails the test, leaks (LeakSanitizer) included; the demos' pass
# patterns would hide an exit status, so a report is also matched.
set(MFA_SANITIZE_ENV
  "ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:strict_string_checks=1:detect_stack_use_after_return=1"
  "UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1")
set_tests_properties(san_c_api ${MFA_SANITIZE_ENGINE_NAMES} san_totp_demo san_mfa_demo PROPERTIES
  LABELS sanitize ENVIRONMENT "${MFA_SANITIZE_ENV}" TIMEOUT 300
  FAIL_REGULAR_EXPRESSION "ERROR: [A-Za-z]+Sanitizer|runtime error:")
set_tests_properties(san_python_mfa_demo PROPERTIES
  LABELS sanitize TIMEOUT 300 FAIL_REGULAR_EXPRESSION "ERROR: [A-Za-z]+Sanitizer"
  ENVIRONMENT "LD_PRELOAD=${MFA_ASAN_RUNTIME};ASAN_OPTIONS=detect_leaks=0;LIBMFA_LIBRARY=$<TARGET_FILE:mfa>")

# The positive controls: a leak of, and a read past, memory libmfa allocated must be reported.
add_test(NAME san_control_leak COMMAND san_sanitizer_control leak)
set_tests_properties(san_control_leak PROPERTIES LABELS sanitize ENVIRONMENT "${MFA_SANITIZE_ENV}"
  PASS_REGULAR_EXPRESSION "ERROR: LeakSanitizer: detected memory leaks.*in mfa_base32_encode")
add_test(NAME san_control_overflow COMMAND san_sanitizer_control overflow)
set_tests_properties(san_control_overflow PROPERTIES LABELS sanitize ENVIRONMENT "${MFA_SANITIZE_ENV}"
  PASS_REGULAR_EXPRESSION "ERROR: AddressSanitizer: heap-buffer-overflow")
