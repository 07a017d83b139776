#!/bin/bash
# sass.sh: SASS of the probe objects in .device/obj into $OUT/sass.tgz
mkdir -p /tmp/sass
for o in .device/obj/*.o; do n=$(basename $o .o); cuobjdump -sass $o > /tmp/sass/$n.sass 2>&1; echo "$n: $(grep -c 'LDL' /tmp/sass/$n.sass) LDL, $(grep -c 'STL' /tmp/sass/$n.sass) STL"; done
tar czf $OUT/sass.tgz -C /tmp sass
