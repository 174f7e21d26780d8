#!/usr/bin/env bash
# Build the stock kernel (the pristine base tree with its own kprobes) with
# exactly the fragments our kernel gets, for comparison:
#
#   harness/build-stock.sh                          # x86_64, VARIANT=ftrace
#   ARCH=arm64 harness/build-stock.sh
#   VARIANT= harness/build-stock.sh                 # the default config
#
# The tree is only built (out of tree, O=$CACHE/build/stock-ARCH-VARIANT),
# never modified and never read.  Prints the image path as the last line.
export STOCK=1
export VARIANT=${VARIANT-ftrace}
exec "$(dirname "$0")/build.sh" "$@"
