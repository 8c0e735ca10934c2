package main

import "testing"

func TestUnitOfCgroup(t *testing.T) {
	tests := []struct {
		name, cgroup, want string
	}{
		{name: "systemd user unit", cgroup: "0::/user.slice/user-1000.slice/user@1000.service/app.slice/supervisord@default.service\n", want: "supervisord@default.service"},
		{name: "terminal scope", cgroup: "0::/user.slice/user-1000.slice/user@1000.service/app.slice/app-org.gnome.Terminal.slice/vte-spawn-1.scope\n"},
		{name: "the user manager itself", cgroup: "0::/user.slice/user-1000.slice/user@1000.service/init.scope\n"},
		{name: "container root", cgroup: "0::/\n"},
		{name: "cgroup v1 lines ignored", cgroup: "12:pids:/user.slice/x.service\n1:name=systemd:/user.slice/x.service\n0::/user.slice/user-0.slice/session-3.scope\n"},
		{name: "hybrid", cgroup: "1:name=systemd:/x\n0::/system.slice/other.service\n", want: "other.service"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := unitOfCgroup(tt.cgroup); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}
