#ifndef SIGNINSIM_CYAML_SHIM_H
#define SIGNINSIM_CYAML_SHIM_H
#include <yaml.h>
#endif
