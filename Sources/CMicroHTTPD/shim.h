#ifndef SIGNINSIM_CMICROHTTPD_SHIM_H
#define SIGNINSIM_CMICROHTTPD_SHIM_H
#include <sys/types.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <microhttpd.h>
#endif
