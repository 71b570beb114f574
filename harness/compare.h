#ifndef PAGELAB_COMPARE_H
#define PAGELAB_COMPARE_H
int compare_main(int argc, char **argv);
#endif
