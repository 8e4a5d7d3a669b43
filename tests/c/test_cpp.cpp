// flatquad.h from C++: the header's extern "C" guards, its types in C++ code, a
// captureless lambda as a callback, and RAII around qt_destroy; on each structure.
#include "flatquad.h"
#include "flatquad.h" // twice: the include guard holds

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <memory>
#include <vector>

namespace {

int passed = 0, failed = 0;

void check(bool ok, const char *what, int line) {
    if (ok) {
        ++passed;
    } else {
        ++failed;
        std::fprintf(stderr, "test_cpp.cpp:%d: check failed: %s\n", line, what);
    }
}
#define CHECK(cond) check((cond), #cond, __LINE__)

struct TreeDeleter {
    void operator()(qt_tree *tree) const { qt_destroy(tree); }
};
using Tree = std::unique_ptr<qt_tree, TreeDeleter>;

Tree make_tree(qt_kind kind, qt_rect world) {
    qt_tree *raw = nullptr;
    qt_status status = qt_create_default(kind, world, &raw);
    CHECK(status == QT_OK && qt_kind_of(raw) == kind);
    return Tree(raw);
}

void exercise(qt_kind kind) {
    Tree tree = make_tree(kind, qt_rect{0.0f, 0.0f, 100.0f, 100.0f});
    std::vector<qt_handle_t> handles(10);
    std::vector<qt_rect> rects;
    std::vector<uint32_t> ids;
    for (uint32_t i = 0; i < 10; ++i) {
        float x = 9.0f * static_cast<float>(i);
        rects.push_back(qt_rect{x, 0.0f, x + 10.0f, 10.0f}); // each touches the next
        ids.push_back(i);
    }
    std::size_t bad = 0;
    CHECK(qt_insert_many(tree.get(), rects.data(), ids.data(), rects.size(), handles.data(), &bad) ==
          QT_OK);
    CHECK(qt_len(tree.get()) == 10);

    // Buffer form: size the buffer from the total, then call again.
    std::size_t total = 0;
    qt_query_desc probe = qt_rect_query(qt_rect{0.0f, 0.0f, 20.0f, 20.0f});
    CHECK(qt_query(tree.get(), &probe, nullptr, 0, &total) == QT_OK);
    std::vector<qt_handle_t> hits(total);
    CHECK(qt_query(tree.get(), &probe, hits.data(), hits.size(), &total) == QT_OK);
    CHECK(total == 3 && hits.size() == 3);
    std::sort(hits.begin(), hits.end());
    std::vector<qt_handle_t> want(handles.begin(), handles.begin() + 3);
    std::sort(want.begin(), want.end());
    CHECK(hits == want);

    // Callback form with a captureless lambda and user_data.
    std::vector<uint32_t> found;
    struct Ctx {
        const qt_tree *tree;
        std::vector<uint32_t> *ids;
    } ctx{tree.get(), &found};
    qt_query_desc omitting = probe;
    omitting.omit = handles[0];
    qt_status status = qt_query_each(
        tree.get(), &omitting,
        [](void *user_data, qt_handle_t h) -> int {
            auto *c = static_cast<Ctx *>(user_data);
            uint32_t id = 0;
            if (qt_element_id(c->tree, h, &id) == QT_OK) c->ids->push_back(id);
            return 0;
        },
        &ctx);
    CHECK(status == QT_OK);
    std::sort(found.begin(), found.end());
    CHECK((found == std::vector<uint32_t>{1, 2}));

    // Pairs: 9 touching neighbours.
    std::vector<qt_pair> pairs(16);
    CHECK(qt_query_pairs(tree.get(), pairs.data(), pairs.size(), &total) == QT_OK);
    CHECK(total == 9);

    // A batch mixing shapes, in compressed rows: the point (5, 5) meets
    // element 0, the circle around (31, 5) element 3, element 0 touches 1.
    std::vector<qt_query_desc> batch = {qt_point_query(5.0f, 5.0f),
                                        qt_circle_query(31.0f, 5.0f, 1.0),
                                        qt_element_query(handles[0])};
    std::vector<std::size_t> offsets(batch.size() + 1);
    std::vector<qt_handle_t> rows(16);
    CHECK(qt_query_many(tree.get(), batch.data(), batch.size(), offsets.data(), rows.data(),
                        rows.size(), &total, nullptr) == QT_OK);
    CHECK(total == 3 && offsets[1] == 1 && offsets[2] == 2 && offsets[3] == 3);
    CHECK(rows[0] == handles[0] && rows[1] == handles[3] && rows[2] == handles[1]);
    qt_query_desc unknown = probe;
    unknown.kind = 99;
    CHECK(qt_query(tree.get(), &unknown, hits.data(), hits.size(), &total) == QT_INVALID_PARAMETER);

    // Errors change nothing.
    qt_handle_t h = 0;
    CHECK(qt_insert(tree.get(), qt_rect{2.0f, 0.0f, 1.0f, 1.0f}, 1, &h) == QT_INVALID_RECT);
    CHECK(h == 0 && qt_len(tree.get()) == 10);
    CHECK(qt_remove(tree.get(), handles[4]) == QT_OK);
    CHECK(qt_remove(tree.get(), handles[4]) == QT_INVALID_HANDLE);

    qt_tree_stats stats{};
    CHECK(qt_stats(tree.get(), &stats) == QT_OK);
    CHECK(qt_len(tree.get()) == 9);
}

} // namespace

int main() {
    CHECK(std::strcmp(qt_version(), QT_VERSION_STRING) == 0);
    CHECK(std::strcmp(qt_status_str(QT_INVALID_RECT), qt_status_str(QT_OK)) != 0);
    for (qt_kind kind : {QT_KIND_QUADTREE, QT_KIND_GRID, QT_KIND_LOOSE_GRID, QT_KIND_LOOSE_QUADTREE})
        exercise(kind);

    std::printf("test_cpp: %d passed, %d failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}
