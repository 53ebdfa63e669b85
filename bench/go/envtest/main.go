// Command envtest is the controller-runtime side of bench/envtest-start.bench.ts: one
// envtest.Environment{BinaryAssetsDirectory} Start and Stop from the binaries in -assets (the
// setup-envtest layout: kube-apiserver, etcd, kubectl), timed. It prints one JSON line:
// {"readyMs":…,"stopMs":…}. KUBEBUILDER_ASSETS must be unset: it would override the directory.
//
//	envtest -assets DIR
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

type figures struct {
	ReadyMs float64 `json:"readyMs"`
	StopMs  float64 `json:"stopMs"`
}

func fail(format string, arguments ...any) {
	fmt.Fprintf(os.Stderr, format+"\n", arguments...)
	os.Exit(1)
}

func milliseconds(duration time.Duration) float64 {
	return float64(duration.Microseconds()) / 1000
}

func main() {
	assets := flag.String("assets", "", "directory with kube-apiserver, etcd and kubectl")
	flag.Parse()
	if *assets == "" {
		fail("-assets is required")
	}
	if os.Getenv("KUBEBUILDER_ASSETS") != "" {
		fail("unset KUBEBUILDER_ASSETS: it overrides -assets")
	}
	environment := &envtest.Environment{BinaryAssetsDirectory: *assets}
	startedAt := time.Now()
	if _, err := environment.Start(); err != nil {
		fail("start: %v", err)
	}
	ready := time.Since(startedAt)
	stoppingAt := time.Now()
	if err := environment.Stop(); err != nil {
		fail("stop: %v", err)
	}
	stopped := time.Since(stoppingAt)
	line, _ := json.Marshal(figures{ReadyMs: milliseconds(ready), StopMs: milliseconds(stopped)})
	fmt.Println(string(line))
}
