// The extension needs_ext.py imports; deliberately not built in this test package.
extern "C" void ext_kernel(void* out, const void** in, const char* opaque, unsigned long len, void* status) {}
