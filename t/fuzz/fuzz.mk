# Builds the libFuzzer harnesses (GNU make; called from Makefile.am's
# fuzz-build with the variables below, in the build directory).
#
# libFuzzer needs clang, and the code under test compiled with coverage
# (-fsanitize=fuzzer-no-link): every lib/ source and the plugin's parsers
# are compiled once more with clang, ASan and UBSan (any undefined
# behaviour aborts: a finding) into one archive, and each t/fuzz/fuzz_NAME.c
# is linked against it.
#
#   srcdir        the source tree
#   FUZZ_CC       clang
#   FUZZ_CPPFLAGS the build's preprocessor flags (config.h, -I lib, ...)
#   DEPS_CFLAGS   hwloc and json-c
#   DEPS_LIBS
#   LIB_SOURCES   libgolden's sources (Makefile.am's list)
#   HARNESSES     NAME for each t/fuzz/fuzz_NAME.c

OBJDIR := t/fuzz/obj
FUZZ_CFLAGS := -std=gnu11 -g -O1 -fno-omit-frame-pointer \
	-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined
SRCS := $(filter %.c,$(LIB_SOURCES)) spank/plugin_args.c spank/option.c
OBJS := $(patsubst %.c,$(OBJDIR)/%.o,$(SRCS))
HOBJS := $(patsubst %,$(OBJDIR)/t/fuzz/fuzz_%.o,$(HARNESSES)) $(OBJDIR)/t/fuzz/fuzz_util.o
BINS := $(patsubst %,t/fuzz/fuzz_%,$(HARNESSES))

all: $(BINS)

$(OBJDIR)/%.o: $(srcdir)/%.c
	@mkdir -p $(dir $@)
	@echo "  FUZZCC   $<"
	@$(FUZZ_CC) $(FUZZ_CFLAGS) $(FUZZ_CPPFLAGS) -I$(srcdir)/spank $(DEPS_CFLAGS) \
		-MMD -MP -c $< -o $@

t/fuzz/libgolden-fuzz.a: $(OBJS)
	@rm -f $@
	@ar rcs $@ $^

t/fuzz/fuzz_%: $(OBJDIR)/t/fuzz/fuzz_%.o $(OBJDIR)/t/fuzz/fuzz_util.o t/fuzz/libgolden-fuzz.a
	@echo "  FUZZLD   $@"
	@$(FUZZ_CC) -fsanitize=fuzzer,address,undefined $^ $(DEPS_LIBS) -ldl -o $@

-include $(OBJS:.o=.d) $(HOBJS:.o=.d)

.PHONY: all
.SECONDARY:
