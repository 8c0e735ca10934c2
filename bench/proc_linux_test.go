package bench

import (
	"os"
	"testing"
)

func TestReadProc(t *testing.T) {
	s, err := ReadProc(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if s.RSS <= 0 || s.Threads <= 0 {
		t.Errorf("ReadProc(self) = %+v", s)
	}
	if _, err := ReadSystem(); err != nil {
		t.Error(err)
	}
}
