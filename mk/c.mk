# The C ABI: libflatquad.so / libflatquad.a (ffi-c/), the generated header
# include/flatquad.h, `make install`, and the C tests (tests/c/run.sh).
#
#   make c-lib                      build target/release/libflatquad.{so,a}
#   make c-header                   regenerate include/flatquad.h (pinned cbindgen)
#   make c-generated                regenerate the octree's calls from the 2D ones, then the header
#   make install PREFIX=/usr/local  install the libraries, header, pkg-config and CMake files
#   make uninstall PREFIX=...       remove what install put there
#   make test-c                     every C check; part of `make test`
#   make bench-c                    the agents workload in C beside the Rust demo, as ratios

CBINDGEN_VERSION := 0.29.4
C_TOOLS := $(CURDIR)/.tools
CBINDGEN := $(C_TOOLS)/bin/cbindgen
C_RELEASE := $(TARGET_DIR)/release

PREFIX ?= /usr/local
DESTDIR ?=
LIBDIR ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include

# The version is the header's (so what is installed always agrees with itself);
# tests/c/run.sh checks that the header's version is Cargo.toml's.
C_VERSION_PART = $(shell sed -n 's/^\#define QT_VERSION_$(1) \([0-9]*\)$$/\1/p' include/flatquad.h)
C_VERSION_MAJOR := $(call C_VERSION_PART,MAJOR)
C_VERSION_MINOR := $(call C_VERSION_PART,MINOR)
C_VERSION := $(C_VERSION_MAJOR).$(C_VERSION_MINOR).$(call C_VERSION_PART,PATCH)
# The soname ffi-c/build.rs gives: 0.MINOR while the major version is 0.
C_SOVERSION := $(if $(filter 0,$(C_VERSION_MAJOR)),0.$(C_VERSION_MINOR),$(C_VERSION_MAJOR))
# What the Rust standard library in libflatquad.a needs (rustc --print native-static-libs).
C_STATIC_LIBS := -lgcc_s -lutil -lrt -lpthread -lm -ldl

.PHONY: c-lib c-header c-generated c-cbindgen install uninstall test-c bench-c

TEST_TARGETS += test-c

c-lib:
	$(CARGO) build --release -p flatquad-ffi

# cbindgen, pinned, in the project's own .tools/ (gitignored).
c-cbindgen:
	@if ! "$(CBINDGEN)" --version 2>/dev/null | grep -qx "cbindgen $(CBINDGEN_VERSION)"; then \
		echo "installing cbindgen $(CBINDGEN_VERSION) into $(C_TOOLS)"; \
		$(CARGO) install cbindgen --version $(CBINDGEN_VERSION) --locked --root "$(C_TOOLS)"; \
	fi

c-header: c-cbindgen
	"$(CBINDGEN)" --quiet --config ffi-c/cbindgen.toml --crate flatquad-ffi --output include/flatquad.h ffi-c

# ffi-c/src/octree_calls.rs, the octree's calls, written from the 2D ones by
# ffi-c/codegen (its own crate: it runs even when a stale file does not compile).
c-generated:
	$(CARGO) run -q -p flatquad-ffi-codegen
	$(MAKE) --no-print-directory c-header

# The paths written into flatquad.pc and the CMake package: absolute for an
# install, relative to the files themselves with C_RELOCATABLE=1 (the C tarball
# of `make dist`, which may be unpacked anywhere).
ifdef C_RELOCATABLE
C_PC_PREFIX = $${pcfiledir}/../..
C_PC_LIBDIR = $${prefix}/lib
C_PC_INCLUDEDIR = $${prefix}/include
C_CMAKE_LIBDIR = $${_flatquad_prefix}/lib
C_CMAKE_INCLUDEDIR = $${_flatquad_prefix}/include
else
C_PC_PREFIX = $(PREFIX)
C_PC_LIBDIR = $(LIBDIR)
C_PC_INCLUDEDIR = $(INCLUDEDIR)
C_CMAKE_LIBDIR = $(LIBDIR)
C_CMAKE_INCLUDEDIR = $(INCLUDEDIR)
endif

# Directories the dynamic loader searches by itself (ldconfig's cache): only an
# install there needs ldconfig; elsewhere the rpath of pkg-config's flags (and of
# CMake's link) finds the library.
C_SYSTEM_LIBDIRS := /lib /lib64 /usr/lib /usr/lib64 /usr/local/lib /usr/local/lib64 \
	$(addprefix /usr/lib/,$(shell $(CC) -print-multiarch 2>/dev/null)) \
	$(addprefix /lib/,$(shell $(CC) -print-multiarch 2>/dev/null))

C_SUBST = sed -e 's|@PC_PREFIX@|$(C_PC_PREFIX)|g' -e 's|@PC_LIBDIR@|$(C_PC_LIBDIR)|g' \
	-e 's|@PC_INCLUDEDIR@|$(C_PC_INCLUDEDIR)|g' -e 's|@CMAKE_LIBDIR@|$(C_CMAKE_LIBDIR)|g' \
	-e 's|@CMAKE_INCLUDEDIR@|$(C_CMAKE_INCLUDEDIR)|g' -e 's|@VERSION@|$(C_VERSION)|g' \
	-e 's|@VERSION_MAJOR@|$(C_VERSION_MAJOR)|g' -e 's|@VERSION_MINOR@|$(C_VERSION_MINOR)|g' \
	-e 's|@SOVERSION@|$(C_SOVERSION)|g' -e 's|@STATIC_LIBS@|$(C_STATIC_LIBS)|g' \
	-e "s|@SIZEOF_VOID_P@|$$(( $$(getconf LONG_BIT) / 8 ))|g"

install: c-lib
	install -d "$(DESTDIR)$(INCLUDEDIR)" "$(DESTDIR)$(LIBDIR)/pkgconfig" "$(DESTDIR)$(LIBDIR)/cmake/flatquad"
	install -m 644 include/flatquad.h "$(DESTDIR)$(INCLUDEDIR)/flatquad.h"
	install -m 755 "$(C_RELEASE)/libflatquad.so" "$(DESTDIR)$(LIBDIR)/libflatquad.so.$(C_VERSION)"
	ln -sf "libflatquad.so.$(C_VERSION)" "$(DESTDIR)$(LIBDIR)/libflatquad.so.$(C_SOVERSION)"
	ln -sf "libflatquad.so.$(C_SOVERSION)" "$(DESTDIR)$(LIBDIR)/libflatquad.so"
	install -m 644 "$(C_RELEASE)/libflatquad.a" "$(DESTDIR)$(LIBDIR)/libflatquad.a"
	$(C_SUBST) ffi-c/install/flatquad.pc.in > "$(DESTDIR)$(LIBDIR)/pkgconfig/flatquad.pc"
	$(C_SUBST) ffi-c/install/flatquadConfig.cmake.in > "$(DESTDIR)$(LIBDIR)/cmake/flatquad/flatquadConfig.cmake"
	$(C_SUBST) ffi-c/install/flatquadConfigVersion.cmake.in > "$(DESTDIR)$(LIBDIR)/cmake/flatquad/flatquadConfigVersion.cmake"
	@echo "installed flatquad $(C_VERSION) under $(DESTDIR)$(PREFIX)"
	@if [ -z "$(DESTDIR)" ] && [ -z "$(C_RELOCATABLE)" ]; then \
	  case " $(C_SYSTEM_LIBDIRS) " in \
	    *" $(patsubst %/,%,$(LIBDIR)) "*) echo "$(LIBDIR) is a system library directory: run ldconfig (as root) to refresh the loader's cache";; \
	    *) echo "link with \$$(pkg-config --cflags --libs flatquad) (PKG_CONFIG_PATH=$(LIBDIR)/pkgconfig) or CMake (CMAKE_PREFIX_PATH=$(PREFIX)): both put $(LIBDIR) in the program's rpath";; \
	  esac; \
	fi

uninstall:
	rm -f "$(DESTDIR)$(INCLUDEDIR)/flatquad.h" \
		"$(DESTDIR)$(LIBDIR)/libflatquad.so" "$(DESTDIR)$(LIBDIR)/libflatquad.so.$(C_SOVERSION)" \
		"$(DESTDIR)$(LIBDIR)/libflatquad.so.$(C_VERSION)" "$(DESTDIR)$(LIBDIR)/libflatquad.a" \
		"$(DESTDIR)$(LIBDIR)/pkgconfig/flatquad.pc" \
		"$(DESTDIR)$(LIBDIR)/cmake/flatquad/flatquadConfig.cmake" \
		"$(DESTDIR)$(LIBDIR)/cmake/flatquad/flatquadConfigVersion.cmake"
	-rmdir "$(DESTDIR)$(LIBDIR)/cmake/flatquad" 2>/dev/null

test-c:
	CARGO="$(CARGO)" CBINDGEN_VERSION="$(CBINDGEN_VERSION)" bash tests/c/run.sh

bench-c:
	CARGO="$(CARGO)" bash tests/c/compare_agents.sh $(SCENARIO)
