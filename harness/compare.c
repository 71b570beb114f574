#include "compare.h"
int compare_main(int argc, char **argv) { (void)argc; (void)argv; return 1; }
