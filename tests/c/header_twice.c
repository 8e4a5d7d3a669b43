/* flatquad.h on its own, included twice: tests/c/run.sh compiles this as C
 * (c99, c11, c17) and as C++ (c++11 to c++20) with every warning an error. */
#include "flatquad.h"
#include "flatquad.h"

int flatquad_header_compiles(void);

int flatquad_header_compiles(void) {
    qt_rect world = {0.0f, 0.0f, 1.0f, 1.0f};
    qt_tree *tree = 0;
    qt_tracker *tracker = 0;
    qt_visit_fn visit = 0;
    qt_pair_fn pair = 0;
    qt_node_fn node = 0;
    qt_tree_stats stats;
    qt_pair p;
    qt_handle_t none = QT_NO_HANDLE;
    qt_kind kind = QT_KIND_LOOSE_GRID;
    (void)world, (void)tree, (void)tracker, (void)visit, (void)pair, (void)node, (void)stats;
    (void)p;
    return (int)QT_OK + (int)QT_BUFFER_TOO_SMALL + (int)none + (int)kind + QT_VERSION_NUMBER +
           (int)sizeof(QT_VERSION_STRING);
}
