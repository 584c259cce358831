#ifndef SIGNINSIM_CLIBXML2_SHIM_H
#define SIGNINSIM_CLIBXML2_SHIM_H
#include <libxml/xmlversion.h>
/* Debian builds libxml2 with ICU, so encoding.h includes the system's <unicode/ucnv.h>, whose
   UErrorCode clashes with the newer one in Foundation's _FoundationICU module when both are
   imported into one Swift module. The ICU declarations only add two trailing fields to
   xmlCharEncodingHandler, a struct this package never allocates or reads: hide them. */
#undef LIBXML_ICU_ENABLED
#include <libxml/HTMLparser.h>
#include <libxml/parserInternals.h>
#include <libxml/tree.h>
#include <libxml/xmlerror.h>
#endif
