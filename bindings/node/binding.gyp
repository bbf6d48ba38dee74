{
  # The Node-API addon (build/Release/mfa.node). No Node-API newer than version 8 (Node.js 18)
  # is used. libmfa is loaded with dlopen() when the addon loads (src/lib.c): the path found
  # here is only the default; LIBMFA_LIBRARY overrides it at run time.
  "variables": {
    "libmfa_include%": "<!(node scripts/configure.js include)",
    "libmfa_library%": "<!(node scripts/configure.js library)"
  },
  "targets": [
    {
      "target_name": "mfa",
      "sources": [
        "src/module.c",
        "src/lib.c",
        "src/env.c",
        "src/pool.c",
        "src/callbacks.c",
        "src/values.c",
        "src/context.c",
        "src/engine.c",
        "src/admin.c",
        "src/stateless.c"
      ],
      "include_dirs": ["<(libmfa_include)"],
      "defines": ["NAPI_VERSION=8", "MFA_NODE_DEFAULT_LIBRARY=\"<(libmfa_library)\""],
      "cflags_c": ["-std=gnu11", "-Wall", "-Wextra", "-Wshadow", "-Werror", "-fvisibility=hidden"],
      "libraries": ["-ldl", "-lpthread"]
    }
  ]
}
