package dist

import (
	"bytes"
	"debug/elf"
	"debug/macho"
	"encoding/binary"
	"fmt"
)

// lcCodeSignature is the Mach-O load command of a code signature.
const lcCodeSignature = 0x1d

// CheckBinary makes sure a built binary is what p runs: an ELF executable
// for its machine with no interpreter (static, so no libc is needed) on
// Linux; a Mach-O executable for its CPU on macOS, with a code signature
// on arm64 (Apple silicon runs no unsigned code; Go's linker signs ad hoc).
func CheckBinary(p Platform, b []byte) error {
	switch p.OS {
	case "linux":
		f, err := elf.NewFile(bytes.NewReader(b))
		if err != nil {
			return err
		}
		want := map[string]elf.Machine{"amd64": elf.EM_X86_64, "arm64": elf.EM_AARCH64}[p.Arch]
		if want != 0 && f.Machine != want {
			return fmt.Errorf("an ELF file for %v, not %s", f.Machine, p)
		}
		for _, prog := range f.Progs {
			if prog.Type == elf.PT_INTERP {
				return fmt.Errorf("dynamically linked (it names an interpreter)")
			}
		}
	case "darwin":
		f, err := macho.NewFile(bytes.NewReader(b))
		if err != nil {
			return err
		}
		want := map[string]macho.Cpu{"amd64": macho.CpuAmd64, "arm64": macho.CpuArm64}[p.Arch]
		if want != 0 && f.Cpu != want {
			return fmt.Errorf("a Mach-O file for %v, not %s", f.Cpu, p)
		}
		if p.Arch == "arm64" && !hasLoad(f, lcCodeSignature) {
			return fmt.Errorf("no code signature: macOS on Apple silicon will not run it")
		}
	}
	return nil
}

func hasLoad(f *macho.File, cmd uint32) bool {
	for _, l := range f.Loads {
		if raw := l.Raw(); len(raw) >= 4 && binary.LittleEndian.Uint32(raw) == cmd {
			return true
		}
	}
	return false
}
