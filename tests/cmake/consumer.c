/* A C program linked against the installed flatquad (tests/cmake). */
#include <flatquad.h>
#include <stdio.h>
#include <string.h>

int main(void) {
    qt_tree *tree = NULL;
    qt_rect world = {0, 0, 100, 100}, r = {10, 10, 20, 20};
    qt_query_desc query = qt_point_query(15, 15);
    qt_handle_t h = QT_NO_HANDLE, hit = QT_NO_HANDLE;
    size_t total = 0;
    if (strcmp(qt_version(), EXPECTED_VERSION) != 0 || strcmp(qt_version(), QT_VERSION_STRING) != 0) {
        fprintf(stderr, "version: library %s, header %s, package %s\n", qt_version(),
                QT_VERSION_STRING, EXPECTED_VERSION);
        return 1;
    }
    if (qt_create(world, 8, 6, &tree) != QT_OK || qt_insert(tree, r, 42, &h) != QT_OK ||
        qt_query(tree, &query, &hit, 1, &total) != QT_OK || total != 1 || hit != h) {
        fprintf(stderr, "consumer: unexpected result\n");
        return 1;
    }
    qt_destroy(tree);
    tree = NULL;
    if (qt_create_grid(world, 10, 10, &tree) != QT_OK || qt_kind_of(tree) != QT_KIND_GRID) {
        fprintf(stderr, "consumer: no grid\n");
        return 1;
    }
    qt_destroy(tree);
    printf("consumer: flatquad %s linked and working\n", qt_version());
    return 0;
}
