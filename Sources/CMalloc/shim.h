// glibc's malloc tuning and statistics (mallopt, mallinfo2), which Swift's Glibc module does not
// export. Empty elsewhere.
#if defined(__GLIBC__) || defined(__linux__)
#include <malloc.h>
#endif
