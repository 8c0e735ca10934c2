package main

import (
	"github.com/chatbus/chatbus/server"
	"github.com/chatbus/chatbus/server/metrics"
)

// metricsConfig is the config file's metrics section: the opt-in
// Prometheus endpoint, off unless listen is set.
type metricsConfig struct {
	// Listen is unix:///absolute/path or host:port (port 0: any free
	// port, logged at start).
	Listen string `yaml:"listen"`
	// AllowNonLoopback allows a host:port that is not loopback.
	AllowNonLoopback bool `yaml:"allow_non_loopback"`
}

// checkMetrics checks metrics.listen, if present: a Unix socket path, or
// a loopback host:port unless allow_non_loopback is true.
func (c *config) checkMetrics() []problem {
	line, present := c.lines["metrics.listen"]
	if !present {
		return nil
	}
	if _, err := metrics.ParseListen(c.Metrics.Listen, c.Metrics.AllowNonLoopback); err != nil {
		return []problem{{line: line, key: "metrics.listen", why: err.Error()}}
	}
	return nil
}

// server is the section as the server takes it.
func (m metricsConfig) server() server.MetricsConfig {
	return server.MetricsConfig{Listen: m.Listen, AllowNonLoopback: m.AllowNonLoopback}
}
