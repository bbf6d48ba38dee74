# What rlm_mfa.so (radius/) is built against: Debian's libfreeradius-dev headers
# (/usr/include/freeradius) and libraries (/usr/lib/freeradius), talloc, and the
# headers libfreeradius-dev leaves out, which scripts/freeradius_headers.sh (run by
# scripts/setup.sh) takes from the Debian source package of the same version.
# Sets MFA_FREERADIUS_FOUND, or MFA_FREERADIUS_MISSING (what is missing).
set(MFA_FREERADIUS_FOUND OFF)
set(MFA_FREERADIUS_MISSING "")
set(MFA_FREERADIUS_INCLUDE_DIR /usr/include/freeradius CACHE PATH "FreeRADIUS's installed headers (Debian: libfreeradius-dev)")
if(EXISTS ${MFA_FREERADIUS_INCLUDE_DIR}/features.h)
  file(STRINGS ${MFA_FREERADIUS_INCLUDE_DIR}/features.h MFA_FREERADIUS_VERSION_LINE
       REGEX "^#define RADIUSD_VERSION_STRING ")
  string(REGEX REPLACE ".*\"(.*)\".*" "\\1" MFA_FREERADIUS_VERSION "${MFA_FREERADIUS_VERSION_LINE}")
  set(MFA_FREERADIUS_EXTRA_INCLUDE_DIR ${PROJECT_SOURCE_DIR}/build/freeradius-headers/${MFA_FREERADIUS_VERSION}
      CACHE PATH "The FreeRADIUS headers libfreeradius-dev leaves out (scripts/freeradius_headers.sh)")
  if(NOT EXISTS ${MFA_FREERADIUS_EXTRA_INCLUDE_DIR}/complete)
    list(APPEND MFA_FREERADIUS_MISSING "the headers libfreeradius-dev leaves out (run scripts/freeradius_headers.sh)")
  endif()
else()
  list(APPEND MFA_FREERADIUS_MISSING "FreeRADIUS's headers (Debian: libfreeradius-dev)")
endif()
find_library(MFA_FREERADIUS_SERVER_LIBRARY freeradius-server PATHS /usr/lib/freeradius NO_DEFAULT_PATH)
find_library(MFA_FREERADIUS_RADIUS_LIBRARY freeradius-radius PATHS /usr/lib/freeradius NO_DEFAULT_PATH)
if(NOT MFA_FREERADIUS_SERVER_LIBRARY OR NOT MFA_FREERADIUS_RADIUS_LIBRARY)
  list(APPEND MFA_FREERADIUS_MISSING "FreeRADIUS's libraries (Debian: libfreeradius-dev)")
endif()
pkg_check_modules(MFA_TALLOC talloc)
if(NOT MFA_TALLOC_FOUND)
  list(APPEND MFA_FREERADIUS_MISSING "talloc (Debian: libtalloc-dev)")
endif()
# FreeRADIUS's headers include PCRE's and OpenSSL's, as Debian's FreeRADIUS was built with them.
include(CheckIncludeFile)
check_include_file(pcre.h MFA_HAVE_PCRE_H)
check_include_file(openssl/ssl.h MFA_HAVE_OPENSSL_H)
if(NOT MFA_HAVE_PCRE_H)
  list(APPEND MFA_FREERADIUS_MISSING "pcre.h (Debian: libpcre3-dev)")
endif()
if(NOT MFA_HAVE_OPENSSL_H)
  list(APPEND MFA_FREERADIUS_MISSING "openssl/ssl.h (Debian: libssl-dev)")
endif()
find_package(Threads)
if(NOT MFA_FREERADIUS_MISSING)
  set(MFA_FREERADIUS_FOUND ON)
  set(MFA_FREERADIUS_LIBRARIES ${MFA_FREERADIUS_SERVER_LIBRARY} ${MFA_FREERADIUS_RADIUS_LIBRARY})
endif()
