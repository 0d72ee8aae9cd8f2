#include <security/pam_appl.h>
