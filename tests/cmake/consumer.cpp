// A C++ program linked against the installed static flatquad (tests/cmake).
#include <flatquad.h>

#include <cstdio>
#include <cstring>
#include <memory>

int main() {
    if (std::strcmp(qt_version(), EXPECTED_VERSION) != 0) return 1;
    qt_tree *raw = nullptr;
    if (qt_create(qt_rect{0, 0, 100, 100}, 8, 6, &raw) != QT_OK) return 1;
    std::unique_ptr<qt_tree, void (*)(qt_tree *)> tree(raw, qt_destroy);
    qt_handle_t a = 0, b = 0;
    if (qt_insert(tree.get(), qt_rect{10, 10, 20, 20}, 1, &a) != QT_OK) return 1;
    if (qt_insert(tree.get(), qt_rect{20, 20, 30, 30}, 2, &b) != QT_OK) return 1;
    std::size_t pairs = 0;
    if (qt_query_pairs(tree.get(), nullptr, 0, &pairs) != QT_OK || pairs != 1) return 1;
    std::printf("consumer (C++, static): flatquad %s linked and working\n", qt_version());
    return 0;
}
