#ifndef SIGNINSIM_CLIBXML2_SHIM_H
#define SIGNINSIM_CLIBXML2_SHIM_H
#include <libxml/HTMLparser.h>
#include <libxml/tree.h>
#include <libxml/xmlerror.h>
#endif
