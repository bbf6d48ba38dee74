# The C-side tests, run by CTest.
find_package(Python3 REQUIRED COMPONENTS Interpreter)
set(MFA_VECTORS ${PROJECT_SOURCE_DIR}/Tests/vectors/otp_vectors.txt)
set(MFA_STRICT_C -std=c99 -Wall -Wextra -pedantic -Werror)
# What the test programs share (check macros, helpers): a change rebuilds them.
set(MFA_TEST_SUPPORT_H ${PROJECT_SOURCE_DIR}/Tests/c/test_support.h)

# The C API test program, built once with gcc and once with clang.
foreach(compiler gcc clang)
  find_program(MFA_${compiler} ${compiler} REQUIRED)
  set(program ${PROJECT_BINARY_DIR}/c_api_test_${compiler})
  add_custom_command(OUTPUT ${program}
    COMMAND ${MFA_${compiler}} ${MFA_STRICT_C} -I${PROJECT_SOURCE_DIR}/include
            ${PROJECT_SOURCE_DIR}/Tests/c/test_mfa.c -L$<TARGET_FILE_DIR:mfa> -lmfa
            -Wl,-rpath,$<TARGET_FILE_DIR:mfa> -o ${program}
    DEPENDS mfa ${PROJECT_SOURCE_DIR}/Tests/c/test_mfa.c ${MFA_TEST_SUPPORT_H}
            ${PROJECT_SOURCE_DIR}/include/mfa.h ${PROJECT_SOURCE_DIR}/include/mfa_types.h
    COMMENT "Building the C API test with ${compiler}")
  add_custom_target(c_api_test_${compiler}_build ALL DEPENDS ${program})
  add_test(NAME c_api_${compiler} COMMAND ${program} ${MFA_VECTORS})
endforeach()

# The engine through the C ABI: one short program per flow, on the fixtures of
# Tests/c/test_engine_fixture.h (injected clock and randomness, a recording SMS sender and
# app verifier, an audit log that checks every event for numbers and codes, users, each
# factor kind enrolled and signed in with), each built once with gcc and once with clang:
#   engine_config         flow 1: project and tenant configuration, set and update, the guides' shapes
#   engine_prerequisites  flow 2: state, first factor, email, recent login, the factor limit
#   engine_totp_enroll    flow 4: TOTP secrets, key URIs, QR codes, every refusal
#   engine_phone_enroll   flow 3 (and the first phone sign-in): masking, E.164, SMS codes
#   engine_app_verification  the app verifier, appVerification, disabled phone provider
#   engine_sign_in_totp   flow 5 with TOTP: resolvers, hints, claims, every INVALID_SESSION, windows
#   engine_sign_in_phone  flow 5 with SMS codes, other users' and tenants' factors, mixed factors
#   engine_unenroll       flow 6: unenroll, revocation of earlier credentials, step-up
#   engine_backoff        backoff of TOTP and SMS failures, 10^4-guess brute force
#   engine_sms_limits     resend cooldown, enrollment caps, sign-in budget per factor, sender failure
#   engine_test_numbers   test phone numbers and the development outbox
#   engine_audit          every audit event, none holding a secret, code, token or number
#   engine_audit_trail    the stored audit trail (issue 52): read back as reported, filters, a
#                 deleted row found by mfa_trail_verify, purge by size, chains, options version 2
#                 and 3, every bad query
#   engine_at_rest        nothing secret in the SQLite file or its WAL
#   engine_key_rotation   master key rotation, key options
#   engine_random         the injected random source; one that repeats itself (all 0x00, all 0xFF,
#                 a cycle) never makes a call loop: recovery codes are CRYPTO
#                 (test_random_callback_repeats_recovery_codes)
#   engine_imports        TOTP factors imported from secrets and otpauth URIs
#   engine_recovery_codes recovery codes: sets, sign-in, claims, the limit
#   engine_bad_input, engine_phone_bad_input, engine_generic_bad_input  every bad argument of the
#                 context, users, TOTP and tokens; of the SMS calls; of mfa_enroll, mfa_resolve and
#                 the other calls of issue 9
#   engine_flow_contract  enroll, wrong code, sign-in, replay, unenroll, revocation and backoff for
#                 every factor kind through mfa_enroll / mfa_resolve (also on PostgreSQL, below)
#   engine_hardening      issue 8's regressions that show in the ABI (test_regression_item<N>_...)
#   engine_key_memory     issue 8 item 9: no key material in the process's memory after mfa_close
#   engine_webauthn       a security key (Ed25519, libsodium) enrolled and signing in through
#                 mfa_enroll/mfa_resolve (assertion version 2), replay, a clone, the trust
#                 callback (options version 2), version-1 structs, the stateless checks
#   engine_webauthn_passkeys  passkeys (issue 49): registration with mfa_webauthn_options, sign-in
#                 with a passkey alone (mfa_passkey_sign_in_options / mfa_passkey_sign_in), the
#                 listing, and the contract (two passkeys, another user handle, an unknown
#                 credential, a security key, UV missing, replay, clone, removed, another tenant's,
#                 revocation, backoff) with one answer for every refusal that could tell whether a
#                 credential exists (also on PostgreSQL, below)
#   engine_admin          issue 12's admin API (mfa_admin_*): pages of users, filters, a user's
#                 factors, rename, unenroll, reset, delete, stats, each with its actor audited
#   engine_admin_imports  mfa_import (otpauth, users file, CSV) and mfa_import_google_authenticator:
#                 reports per line, re-runs, batches and progress, every bad option
#   engine_admin_keys     mfa_rotate_keys_batched (stopped and resumed) and mfa_check_seals
#   engine_email          email codes: enrollment and sign-in through the mailer of options version 3,
#                 masked hints, INVALID_EMAIL, a failing mailer, the verified sign-in address, the outbox
#   engine_devices        remembered devices: remember after a second factor, sign in with the token
#                 (ignored and audited when it does not stand in), list, revoke (one, all, admin,
#                 mfa_revoke_tokens), the limit per user, every bad argument
#   engine_answers        issue 45's answers: every token minted before a reset, delete or removal is
#                 USER_TOKEN_EXPIRED on every kind; reset and delete of a user with nothing to
#                 remove (never seen, deleted, reset) are MFA_ENROLLMENT_NOT_FOUND, unaudited
#   engine_metrics        mfa_metrics_snapshot and mfa_metrics_prometheus: a journey counted by kind and
#                 outcome, tenant labels and their bound, metrics off, options version 2, bad input
#   engine_key_mismatch   issue 45 item 7: another key under a known id is MFA_ERR_KEY_MISMATCH at
#                 mfa_open (current and earlier keys, two servers, stores from before check values)
# and the tests of processes, races and crashes:
#   engine_token_race  two processes racing on one HOTP code and on one Yubico OTP, each with a
#                 pending credential of its own: exactly one sign-in in each of 200 rounds
#   engine_race   processes racing on one store (same code with one or two pending
#                 credentials, one credential for two factors, same enrollment, backoff) and
#                 tokens minted in one process, finished in another
#   engine_crash  SIGKILL at random moments: integrity_check, no committed enrollment lost
#   engine_phone_race  processes racing on one SMS code (sign-in and enrollment), on one number
#                 enrolled twice and on a last try; caps under 1,000-request bursts from 8 threads
#                 and from 8 processes; verification ids handed between processes
#   abi_hardening the defects an outside attack found in the C ABI (issue 8), each held by a
#                 test_regression_... function, and the versioned init functions and structs
# The race tests and the flow contract take a store location (default: a new SQLite file);
# their PostgreSQL runs are registered below (test_pg_store.h, linked with libpq); the worker
# processes of the race tests are in test_race_support.h.
set(MFA_ENGINE_FLOWS config prerequisites totp_enroll phone_enroll app_verification sign_in_totp sign_in_phone
    unenroll backoff sms_limits test_numbers audit audit_trail at_rest key_rotation random imports recovery_codes bad_input
    phone_bad_input generic_bad_input flow_contract hardening key_memory webauthn webauthn_passkeys admin admin_imports admin_keys
    email devices answers metrics key_mismatch)
set(MFA_ENGINE_PROGRAMS engine_race engine_token_race engine_crash engine_phone_race abi_hardening)
foreach(flow ${MFA_ENGINE_FLOWS})
  list(APPEND MFA_ENGINE_PROGRAMS engine_${flow})
  set(MFA_ENGINE_LIBS_engine_${flow} "")
endforeach()
set(MFA_ENGINE_LIBS_engine_flow_contract ${PQ_LDFLAGS} ${SODIUM_LDFLAGS} ${NETTLE_LDFLAGS})
set(MFA_ENGINE_LIBS_engine_admin ${PQ_LDFLAGS})
set(MFA_ENGINE_LIBS_engine_admin_imports ${PQ_LDFLAGS})
set(MFA_ENGINE_LIBS_engine_admin_keys ${PQ_LDFLAGS} ${SQLITE_LDFLAGS})
set(MFA_ENGINE_LIBS_engine_answers ${PQ_LDFLAGS} ${SODIUM_LDFLAGS})
set(MFA_ENGINE_LIBS_engine_key_mismatch ${PQ_LDFLAGS} ${SQLITE_LDFLAGS})
set(MFA_ENGINE_LIBS_engine_hardening ${SQLITE_LDFLAGS})
set(MFA_ENGINE_LIBS_engine_audit_trail ${SQLITE_LDFLAGS})
set(MFA_ENGINE_LIBS_engine_key_memory ${SODIUM_LDFLAGS})
set(MFA_ENGINE_LIBS_engine_race ${PQ_LDFLAGS})
set(MFA_ENGINE_LIBS_engine_token_race ${PQ_LDFLAGS} ${NETTLE_LDFLAGS})
set(MFA_ENGINE_LIBS_engine_crash ${SQLITE_LDFLAGS})
set(MFA_ENGINE_LIBS_engine_phone_race ${PQ_LDFLAGS} -pthread)
set(MFA_ENGINE_LIBS_abi_hardening "")
set(MFA_ENGINE_LIBS_engine_webauthn ${SODIUM_LDFLAGS})
set(MFA_ENGINE_LIBS_engine_webauthn_passkeys ${PQ_LDFLAGS} ${SODIUM_LDFLAGS})
set(MFA_TEST_HEADERS ${MFA_TEST_SUPPORT_H} ${PROJECT_SOURCE_DIR}/Tests/c/test_pg_store.h
    ${PROJECT_SOURCE_DIR}/Tests/c/test_race_support.h ${PROJECT_SOURCE_DIR}/Tests/c/test_pg_server.h
    ${PROJECT_SOURCE_DIR}/Tests/c/test_engine_fixture.h ${PROJECT_SOURCE_DIR}/Tests/c/test_webauthn_authenticator.h
    ${PROJECT_SOURCE_DIR}/Tests/c/test_store_sql.h ${PROJECT_SOURCE_DIR}/Tests/c/test_yubikey.h)
foreach(name ${MFA_ENGINE_PROGRAMS})
  foreach(compiler gcc clang)
    set(program ${PROJECT_BINARY_DIR}/${name}_test_${compiler})
    add_custom_command(OUTPUT ${program}
      COMMAND ${MFA_${compiler}} ${MFA_STRICT_C} -I${PROJECT_SOURCE_DIR}/include ${SQLITE_CFLAGS} ${PQ_CFLAGS}
              ${SODIUM_CFLAGS} ${PROJECT_SOURCE_DIR}/Tests/c/test_${name}.c -L$<TARGET_FILE_DIR:mfa> -lmfa
              ${MFA_ENGINE_LIBS_${name}} -Wl,-rpath,$<TARGET_FILE_DIR:mfa> -o ${program}
      DEPENDS mfa ${PROJECT_SOURCE_DIR}/Tests/c/test_${name}.c ${MFA_TEST_HEADERS}
              ${PROJECT_SOURCE_DIR}/include/mfa.h ${PROJECT_SOURCE_DIR}/include/mfa_types.h
      COMMENT "Building the ${name} test with ${compiler}")
    add_custom_target(${name}_test_${compiler}_build ALL DEPENDS ${program})
    add_test(NAME ${name}_${compiler} COMMAND ${program})
    set_tests_properties(${name}_${compiler} PROPERTIES TIMEOUT 120)
  endforeach()
endforeach()
# The races run rounds of processes until enough of them overlapped: on a loaded
# machine that takes longer, which is no hang.
foreach(compiler gcc clang)
  set_tests_properties(engine_race_${compiler} engine_phone_race_${compiler} PROPERTIES TIMEOUT 300)
endforeach()

# Reading a WebAuthn extension map is linear in its size: callgrind's instruction count of
# mfa_webauthn_verify_assertion() on a map of 6,000 entries against one of 3,000 (about 2; each
# key compared with every key before it gave 3.9), a repeated key INVALID_ARGUMENT
# (bench/cbor_scaling.sh, valgrind; about 5 s).
add_test(NAME cbor_duplicate_keys_linear COMMAND ${PROJECT_SOURCE_DIR}/bench/cbor_scaling.sh 3000 --check 3)
set_tests_properties(cbor_duplicate_keys_linear PROPERTIES
  ENVIRONMENT LIBMFA_LIBRARY=$<TARGET_FILE_DIR:mfa>/libmfa.so TIMEOUT 300)

# Every function of include/mfa.h with hostile arguments (NULL, integer extremes, wrong struct
# versions, overlong and invalid UTF-8 strings, each struct field in turn, hostile callbacks),
# each call in a forked child with an alarm: a signal or a hang fails (Tests/c/abi_fuzz_support.h).
# The driver is generated from the headers at build time (Tests/c/gen_abi_fuzz.py), so a new
# export is covered with no edit. Built with gcc and clang; the gcc build runs.
set(MFA_FUZZ_SOURCE ${PROJECT_BINARY_DIR}/abi_all_exports.c)
add_custom_command(OUTPUT ${MFA_FUZZ_SOURCE}
  COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/Tests/c/gen_abi_fuzz.py
          ${PROJECT_SOURCE_DIR}/include/mfa.h ${PROJECT_SOURCE_DIR}/include/mfa_types.h
          ${PROJECT_SOURCE_DIR}/Tests/c/abi_fuzz_support.h ${MFA_FUZZ_SOURCE}
  DEPENDS ${PROJECT_SOURCE_DIR}/Tests/c/gen_abi_fuzz.py ${PROJECT_SOURCE_DIR}/Tests/c/abi_fuzz_support.h
          ${PROJECT_SOURCE_DIR}/include/mfa.h ${PROJECT_SOURCE_DIR}/include/mfa_types.h
  COMMENT "Generating the all-exports test from include/mfa.h")
foreach(compiler gcc clang)
  set(program ${PROJECT_BINARY_DIR}/abi_all_exports_${compiler})
  add_custom_command(OUTPUT ${program}
    COMMAND ${MFA_${compiler}} ${MFA_STRICT_C} -I${PROJECT_SOURCE_DIR}/include -I${PROJECT_SOURCE_DIR}/Tests/c
            ${MFA_FUZZ_SOURCE} -L$<TARGET_FILE_DIR:mfa> -lmfa -Wl,-rpath,$<TARGET_FILE_DIR:mfa> -o ${program}
    DEPENDS mfa ${MFA_FUZZ_SOURCE} ${PROJECT_SOURCE_DIR}/Tests/c/abi_fuzz_support.h
            ${PROJECT_SOURCE_DIR}/include/mfa.h ${PROJECT_SOURCE_DIR}/include/mfa_types.h
    COMMENT "Building the all-exports test with ${compiler}")
  add_custom_target(abi_all_exports_${compiler}_build ALL DEPENDS ${program})
endforeach()
add_test(NAME abi_all_exports COMMAND ${PROJECT_BINARY_DIR}/abi_all_exports_gcc)
set_tests_properties(abi_all_exports PROPERTIES TIMEOUT 900)

# PostgreSQL, on private servers (scripts/pg.sh; as root it runs the server as `postgres`).
# The fixture `postgres` starts a server on port base+1 before the tests that need it and
# stops it (deleting its data) after them; each test works in a schema of its own.
#   engine_token_race_pg  the token races above (its gcc build) on that server, 200 rounds each
#   engine_race_pg, engine_phone_race_pg  the race tests above (their gcc builds) on that
#                 server, 1,000 rounds for each two-process race; plus (f), a forced
#                 interleaving of an enrollment's last SMS try that only PostgreSQL allows
#   engine_flow_contract_pg  the flow contract (its gcc build) on that server
#   engine_webauthn_passkeys_pg  the passkey contract (its gcc build) on that server
#   engine_admin_pg, engine_admin_imports_pg, engine_admin_keys_pg, engine_answers_pg,
#   engine_key_mismatch_pg  the admin, import, key-rotation, answers and key-check tests (their
#                 gcc builds) on that server
#   pg_deadline_covers_retries  on that server, a trigger that fails every write of a user's row
#                 with SQLSTATE 40001 after 0.8 s: each call gives up with STORAGE_ERROR within
#                 three deadlines (mfa_deadline_ms=1000), its retries included, and nothing was
#                 half-written (test_pg_deadline.c)
#   pg_restart    its own server on port base+2, stopped (pg.sh halt) and started again
#                 three times under one open context: calls fail with STORAGE_ERROR while it is
#                 down, work again after, nothing lost, nothing half-written
#   pg_freeze     its own server on port base+3, frozen (SIGSTOP of the postmaster and all its
#                 processes) under two calls in flight: each call, and calls made while it is
#                 frozen, fail with STORAGE_ERROR at their deadline (mfa_deadline_ms); after
#                 SIGCONT the next call works and nothing was half-written (test_pg_freeze.c)
# The base port is 25432 unless MFA_PG_PORT_BASE is set in the environment at configure
# time (so that several checkouts can run their tests side by side). It sits below the
# kernel's ephemeral ports (32768-60999), where the local port of any client connection
# could take a test server's port just before the server binds it.
if(DEFINED ENV{MFA_PG_PORT_BASE})
  set(MFA_PG_PORT_BASE $ENV{MFA_PG_PORT_BASE})
else()
  set(MFA_PG_PORT_BASE 25432)
endif()
math(EXPR MFA_PG_PORT "${MFA_PG_PORT_BASE} + 1")
math(EXPR MFA_PG_RESTART_PORT "${MFA_PG_PORT_BASE} + 2")
math(EXPR MFA_PG_FREEZE_PORT "${MFA_PG_PORT_BASE} + 3")
set(MFA_PG_SCRIPT ${PROJECT_SOURCE_DIR}/scripts/pg.sh)
add_test(NAME postgres_start COMMAND ${MFA_PG_SCRIPT} start ${MFA_PG_PORT})
set_tests_properties(postgres_start PROPERTIES FIXTURES_SETUP postgres TIMEOUT 120)
add_test(NAME postgres_stop COMMAND ${MFA_PG_SCRIPT} stop ${MFA_PG_PORT})
set_tests_properties(postgres_stop PROPERTIES FIXTURES_CLEANUP postgres TIMEOUT 120)
foreach(name engine_race engine_token_race engine_phone_race engine_flow_contract engine_admin engine_admin_imports
             engine_admin_keys engine_webauthn_passkeys engine_answers engine_key_mismatch)
  add_test(NAME ${name}_pg COMMAND ${PROJECT_BINARY_DIR}/${name}_test_gcc env:MFA_CTEST_POSTGRES_URL)
  set_tests_properties(${name}_pg PROPERTIES
    FIXTURES_REQUIRED postgres
    ENVIRONMENT MFA_CTEST_POSTGRES_URL=postgres://postgres@127.0.0.1:${MFA_PG_PORT}/libmfa
    TIMEOUT 300)
endforeach()

set(program ${PROJECT_BINARY_DIR}/pg_deadline_test_gcc)
add_custom_command(OUTPUT ${program}
  COMMAND ${MFA_gcc} ${MFA_STRICT_C} -I${PROJECT_SOURCE_DIR}/include ${PQ_CFLAGS}
          ${PROJECT_SOURCE_DIR}/Tests/c/test_pg_deadline.c -L$<TARGET_FILE_DIR:mfa> -lmfa
          ${PQ_LDFLAGS} -Wl,-rpath,$<TARGET_FILE_DIR:mfa> -o ${program}
  DEPENDS mfa ${PROJECT_SOURCE_DIR}/Tests/c/test_pg_deadline.c ${MFA_TEST_HEADERS}
          ${PROJECT_SOURCE_DIR}/include/mfa.h ${PROJECT_SOURCE_DIR}/include/mfa_types.h
  COMMENT "Building the pg_deadline test with gcc")
add_custom_target(pg_deadline_test_gcc_build ALL DEPENDS ${program})
add_test(NAME pg_deadline_covers_retries COMMAND ${program} env:MFA_CTEST_POSTGRES_URL)
set_tests_properties(pg_deadline_covers_retries PROPERTIES
  FIXTURES_REQUIRED postgres
  ENVIRONMENT MFA_CTEST_POSTGRES_URL=postgres://postgres@127.0.0.1:${MFA_PG_PORT}/libmfa
  TIMEOUT 120)

set(program ${PROJECT_BINARY_DIR}/pg_restart_test_gcc)
add_custom_command(OUTPUT ${program}
  COMMAND ${MFA_gcc} ${MFA_STRICT_C} -I${PROJECT_SOURCE_DIR}/include ${PQ_CFLAGS}
          ${PROJECT_SOURCE_DIR}/Tests/c/test_pg_restart.c -L$<TARGET_FILE_DIR:mfa> -lmfa
          ${PQ_LDFLAGS} -pthread -Wl,-rpath,$<TARGET_FILE_DIR:mfa> -o ${program}
  DEPENDS mfa ${PROJECT_SOURCE_DIR}/Tests/c/test_pg_restart.c ${MFA_TEST_HEADERS}
          ${PROJECT_SOURCE_DIR}/include/mfa.h ${PROJECT_SOURCE_DIR}/include/mfa_types.h
  COMMENT "Building the pg_restart test with gcc")
add_custom_target(pg_restart_test_gcc_build ALL DEPENDS ${program})
add_test(NAME pg_restart COMMAND ${program} ${MFA_PG_SCRIPT} ${MFA_PG_RESTART_PORT})
# The test stops its server itself; this removes it if the test died first.
add_test(NAME pg_restart_cleanup COMMAND ${MFA_PG_SCRIPT} stop ${MFA_PG_RESTART_PORT})
set_tests_properties(pg_restart_cleanup PROPERTIES FIXTURES_CLEANUP postgres_restart TIMEOUT 120)
set_tests_properties(pg_restart PROPERTIES FIXTURES_REQUIRED postgres_restart TIMEOUT 180)

set(program ${PROJECT_BINARY_DIR}/pg_freeze_test_gcc)
add_custom_command(OUTPUT ${program}
  COMMAND ${MFA_gcc} ${MFA_STRICT_C} -I${PROJECT_SOURCE_DIR}/include ${PQ_CFLAGS}
          ${PROJECT_SOURCE_DIR}/Tests/c/test_pg_freeze.c -L$<TARGET_FILE_DIR:mfa> -lmfa
          ${PQ_LDFLAGS} -pthread -Wl,-rpath,$<TARGET_FILE_DIR:mfa> -o ${program}
  DEPENDS mfa ${PROJECT_SOURCE_DIR}/Tests/c/test_pg_freeze.c ${MFA_TEST_HEADERS}
          ${PROJECT_SOURCE_DIR}/include/mfa.h ${PROJECT_SOURCE_DIR}/include/mfa_types.h
  COMMENT "Building the pg_freeze test with gcc")
add_custom_target(pg_freeze_test_gcc_build ALL DEPENDS ${program})
add_test(NAME pg_freeze COMMAND ${program} ${MFA_PG_SCRIPT} ${MFA_PG_FREEZE_PORT})
add_test(NAME pg_freeze_cleanup COMMAND ${MFA_PG_SCRIPT} stop ${MFA_PG_FREEZE_PORT})
set_tests_properties(pg_freeze_cleanup PROPERTIES FIXTURES_CLEANUP postgres_freeze TIMEOUT 120)
set_tests_properties(pg_freeze PROPERTIES FIXTURES_REQUIRED postgres_freeze TIMEOUT 120)

# The header on its own: C99 with gcc and clang, and C++ with both.
foreach(compiler gcc clang)
  add_test(NAME header_c99_${compiler}
    COMMAND ${MFA_${compiler}} ${MFA_STRICT_C} -fsyntax-only -x c ${PROJECT_SOURCE_DIR}/include/mfa.h)
endforeach()
foreach(compiler g++ clang++)
  find_program(MFA_CXX_${compiler} ${compiler} REQUIRED)
  add_test(NAME header_cxx_${compiler}
    COMMAND ${MFA_CXX_${compiler}} -std=c++11 -Wall -Wextra -pedantic -Werror -fsyntax-only -x c++
            ${PROJECT_SOURCE_DIR}/include/mfa.h)
endforeach()

# include/mfa.h is what the generator makes of the current sources. The module MFA
# is the one this build compiled (MFACore) from the same sources: the generator
# only type-checks the exports against it, in seconds instead of compiling it again.
add_test(NAME header_up_to_date
  COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/scripts/gen_header.py --check
          --module-dir ${PROJECT_BINARY_DIR})

# libmfa.so exports exactly what the header declares, and no Swift runtime is needed.
add_test(NAME exports_match_header
  COMMAND ${PROJECT_SOURCE_DIR}/Tests/c/check_exports.sh $<TARGET_FILE:mfa> ${PROJECT_SOURCE_DIR}/include/mfa.h)

# libmfa.so does not link libpq (it loads it with dlopen for postgres:// stores only).
add_test(NAME libpq_not_linked COMMAND ${PROJECT_SOURCE_DIR}/Tests/c/check_no_libpq.sh $<TARGET_FILE:mfa>)

# The examples run: the stateless C one, the whole flow in C (the README's
# demo) and in Python, each in a scratch folder of its own.
add_test(NAME example_totp_demo COMMAND totp_demo)
set_tests_properties(example_totp_demo PROPERTIES PASS_REGULAR_EXPRESSION "verified: time step")
add_test(NAME example_mfa_demo
  COMMAND mfa_demo ${PROJECT_BINARY_DIR}/example-demo.sqlite ${PROJECT_BINARY_DIR}/example-demo-outbox.jsonl)
set_tests_properties(example_mfa_demo PROPERTIES PASS_REGULAR_EXPRESSION "\ndone\n")
add_test(NAME example_python_mfa_demo COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/examples/python/mfa_demo.py)
set_tests_properties(example_python_mfa_demo PROPERTIES ENVIRONMENT "LIBMFA_LIBRARY=$<TARGET_FILE:mfa>")

# cmake --install, then find_package(mfa) and pkg-config from a separate project.
add_test(NAME install_and_consume
  COMMAND ${PROJECT_SOURCE_DIR}/Tests/c/check_install.sh ${PROJECT_BINARY_DIR} ${PROJECT_SOURCE_DIR})

# A secure-execution process (AT_SECURE: setuid, setgid, file capabilities; sudo and su,
# where pam_mfa runs) ignores the environment: a setgid copy of test_secure_execution
# loads neither library that LIBMFA_LIBPQ and LIBMFA_GNUTLS name, and libpq reads none of
# the PG* variables; a plain copy shows that they work otherwise (needs root).
set(program ${PROJECT_BINARY_DIR}/secure_execution_test_gcc)
add_custom_command(OUTPUT ${program}
  COMMAND ${MFA_gcc} ${MFA_STRICT_C} -I${PROJECT_SOURCE_DIR}/include ${SODIUM_CFLAGS}
          ${PROJECT_SOURCE_DIR}/Tests/c/test_secure_execution.c -L$<TARGET_FILE_DIR:mfa> -lmfa
          ${SODIUM_LDFLAGS} -Wl,-rpath,$<TARGET_FILE_DIR:mfa> -o ${program}
  DEPENDS mfa ${PROJECT_SOURCE_DIR}/Tests/c/test_secure_execution.c ${MFA_TEST_HEADERS}
          ${PROJECT_SOURCE_DIR}/include/mfa.h ${PROJECT_SOURCE_DIR}/include/mfa_types.h
  COMMENT "Building the secure_execution test with gcc")
add_custom_target(secure_execution_test_gcc_build ALL DEPENDS ${program})
add_test(NAME secure_execution
  COMMAND ${PROJECT_SOURCE_DIR}/Tests/c/check_secure_execution.sh library ${program} ${MFA_PG_PORT})
set_tests_properties(secure_execution PROPERTIES FIXTURES_REQUIRED postgres TIMEOUT 120)
