#ifndef SIGNINSIM_CCURL_SHIM_H
#define SIGNINSIM_CCURL_SHIM_H
#include <curl/curl.h>
#endif
