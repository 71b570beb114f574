#ifndef PAGELAB_HTML_H
#define PAGELAB_HTML_H
int html_main(int argc, char **argv);
#endif
