"""Development tools that never ship: the emulator supervisor behind `make run-emulated` and the
child-process helpers the tests share. The image and the wheel leave this package out."""
