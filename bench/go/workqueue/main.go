// Command workqueue measures client-go's workqueue on the workloads of bench/workqueue.bench.ts:
// add, get and done of a set of distinct keys, plainly and through AddRateLimited, each sample
// being -passes passes over the keys with a new queue each. It prints one JSON line per
// measured sample, after two warm-up samples of each workload.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"syscall"
	"time"

	"k8s.io/client-go/util/workqueue"
)

type figures struct {
	Workload         string  `json:"workload"`
	Keys             int     `json:"keys"`
	Passes           int     `json:"passes"`
	Seconds          float64 `json:"seconds"`
	CPUSeconds       float64 `json:"cpuSeconds"`
	OperationsPerSec float64 `json:"operationsPerSecond"`
}

func cpuSeconds() float64 {
	var usage syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &usage); err != nil {
		panic(err)
	}
	return float64(usage.Utime.Nano()+usage.Stime.Nano()) / 1e9
}

// plain adds every key, then gets and marks each done, in one goroutine.
func plain(keys []string) {
	queue := workqueue.NewTyped[string]()
	defer queue.ShutDown()
	for _, key := range keys {
		queue.Add(key)
	}
	for range keys {
		key, _ := queue.Get()
		queue.Done(key)
	}
}

// rateLimited adds every key through the per-item exponential limiter (5 ms for a first
// failure, as the default controller limiter's per-item part), then gets, forgets and marks
// each done.
func rateLimited(keys []string) {
	limiter := workqueue.NewTypedItemExponentialFailureRateLimiter[string](5*time.Millisecond, 1000*time.Second)
	queue := workqueue.NewTypedRateLimitingQueue[string](limiter)
	defer queue.ShutDown()
	for _, key := range keys {
		queue.AddRateLimited(key)
	}
	for range keys {
		key, _ := queue.Get()
		queue.Forget(key)
		queue.Done(key)
	}
}

func measure(name string, keys []string, passes int, run func([]string)) figures {
	cpuBefore := cpuSeconds()
	start := time.Now()
	for range passes {
		run(keys)
	}
	seconds := time.Since(start).Seconds()
	return figures{
		Workload:         name,
		Keys:             len(keys),
		Passes:           passes,
		Seconds:          seconds,
		CPUSeconds:       cpuSeconds() - cpuBefore,
		OperationsPerSec: float64(len(keys)*passes) / seconds,
	}
}

func main() {
	count := flag.Int("keys", 10000, "distinct keys per round")
	samples := flag.Int("samples", 5, "measured samples of each workload (after two warm-up samples)")
	passes := flag.Int("passes", 20, "passes over the keys per sample")
	flag.Parse()
	keys := make([]string, *count)
	for index := range keys {
		keys[index] = fmt.Sprintf("namespace-%d/object-%d", index%100, index)
	}
	workloads := []struct {
		name string
		run  func([]string)
	}{{"plain", plain}, {"rateLimited", rateLimited}}
	encoder := json.NewEncoder(os.Stdout)
	for sample := -2; sample < *samples; sample++ {
		for _, workload := range workloads {
			result := measure(workload.name, keys, *passes, workload.run)
			if sample >= 0 {
				if err := encoder.Encode(result); err != nil {
					panic(err)
				}
			}
		}
	}
}
