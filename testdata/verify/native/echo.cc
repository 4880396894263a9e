// A legacy (api_version 3) CPU kernel: copies its input to its output and appends the
// backend_config bytes it received to the file named by CCMIGRATE_ECHO_LOG.
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "xla/ffi/api/c_api.h"  // built against jax.ffi.include_dir(), as extensions are

static_assert(sizeof(XLA_FFI_Api_Version) > 0, "jax's FFI headers are usable");

extern "C" void ccm_echo(void* out, const void** in, const char* opaque, size_t opaque_len, void* status) {
  std::memcpy(out, in[0], 8 * sizeof(float));
  const char* log = std::getenv("CCMIGRATE_ECHO_LOG");
  if (log != nullptr) {
    FILE* fh = std::fopen(log, "ab");
    if (fh != nullptr) {
      std::fwrite(opaque, 1, opaque_len, fh);
      std::fclose(fh);
    }
  }
}
