#include "html.h"
int html_main(int argc, char **argv) { (void)argc; (void)argv; return 1; }
