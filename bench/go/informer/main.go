// Command informer is the client-go side of bench/informer-pods.bench.ts: one informer over the
// Pods of BENCH_NAMESPACE (kubeconfig from KUBECONFIG), measured the way the bench's Node
// programs measure theirs. It prints one JSON line once synced (time, memory), then counts
// update events until BENCH_UPDATES arrived and prints a second line with the CPU time per event.
//
//	informer -mode default|transform|metadata
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/metadata/metadatainformer"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"
)

type synced struct {
	Objects           int     `json:"objects"`
	SyncedMs          float64 `json:"syncedMs"`
	CPUToSyncedMs     float64 `json:"cpuToSyncedMs"`
	PeakRssMb         float64 `json:"peakRssMb"`
	RssAfterGcMb      float64 `json:"rssAfterGcMb"`
	HeapAfterGcMb     float64 `json:"heapAfterGcMb"`
	HeapPerThousandMb float64 `json:"heapPerThousandMb"`
}

type updated struct {
	Updates                 int      `json:"updates"`
	CPUPerUpdateMicro       float64  `json:"cpuPerUpdateUs"`
	CPUPerWarmupUpdateMicro *float64 `json:"cpuPerWarmupUpdateUs"`
}

func fail(format string, arguments ...any) {
	fmt.Fprintf(os.Stderr, format+"\n", arguments...)
	os.Exit(1)
}

// collectedHeap runs a full collection and returns the live heap in bytes.
func collectedHeap() uint64 {
	runtime.GC()
	debug.FreeOSMemory()
	var stats runtime.MemStats
	runtime.ReadMemStats(&stats)
	return stats.HeapAlloc
}

// residentBytes reads VmRSS from /proc/self/status.
func residentBytes() uint64 {
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		fail("read /proc/self/status: %v", err)
	}
	for _, line := range strings.Split(string(status), "\n") {
		if value, found := strings.CutPrefix(line, "VmRSS:"); found {
			kilobytes, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(value), " kB"), 10, 64)
			if err != nil {
				fail("parse VmRSS %q: %v", value, err)
			}
			return kilobytes * 1024
		}
	}
	fail("no VmRSS in /proc/self/status")
	return 0
}

func usage() syscall.Rusage {
	var rusage syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &rusage); err != nil {
		fail("getrusage: %v", err)
	}
	return rusage
}

func cpuTime(rusage syscall.Rusage) time.Duration {
	return time.Duration(rusage.Utime.Nano() + rusage.Stime.Nano())
}

func dropManagedFields(object any) (any, error) {
	if accessor, err := meta.Accessor(object); err == nil {
		accessor.SetManagedFields(nil)
	}
	return object, nil
}

func main() {
	mode := flag.String("mode", "default", "default, transform or metadata")
	flag.Parse()
	namespace := os.Getenv("BENCH_NAMESPACE")
	measuredUpdates, err := strconv.Atoi(os.Getenv("BENCH_UPDATES"))
	if err != nil || namespace == "" {
		fail("BENCH_NAMESPACE and BENCH_UPDATES must be set")
	}
	warmupUpdates := 0
	if value := os.Getenv("BENCH_WARMUP_UPDATES"); value != "" {
		if warmupUpdates, err = strconv.Atoi(value); err != nil {
			fail("BENCH_WARMUP_UPDATES: %v", err)
		}
	}
	// The warm-up batch comes first, then the measured one.
	expectedUpdates := warmupUpdates + measuredUpdates
	config, err := clientcmd.BuildConfigFromFlags("", os.Getenv("KUBECONFIG"))
	if err != nil {
		fail("kubeconfig: %v", err)
	}

	var informer cache.SharedIndexInformer
	switch *mode {
	case "default", "transform":
		client, err := kubernetes.NewForConfig(config)
		if err != nil {
			fail("clientset: %v", err)
		}
		options := []informers.SharedInformerOption{informers.WithNamespace(namespace)}
		if *mode == "transform" {
			options = append(options, informers.WithTransform(dropManagedFields))
		}
		factory := informers.NewSharedInformerFactoryWithOptions(client, 0, options...)
		informer = factory.Core().V1().Pods().Informer()
	case "metadata":
		client, err := metadata.NewForConfig(config)
		if err != nil {
			fail("metadata client: %v", err)
		}
		pods := schema.GroupVersionResource{Version: "v1", Resource: "pods"}
		informer = metadatainformer.NewFilteredMetadataInformer(client, pods, namespace, 0, cache.Indexers{}, nil).Informer()
	default:
		fail("unknown mode %q", *mode)
	}

	var updates atomic.Int64
	var cpuAtWarm atomic.Int64
	allUpdated := make(chan struct{})
	_, err = informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		UpdateFunc: func(_, object any) {
			if _, isPod := object.(*corev1.Pod); !isPod && *mode != "metadata" {
				fail("update of a %T", object)
			}
			count := updates.Add(1)
			if count == int64(warmupUpdates) {
				cpuAtWarm.Store(int64(cpuTime(usage())))
			}
			if count == int64(expectedUpdates) {
				close(allUpdated)
			}
		},
	})
	if err != nil {
		fail("add handler: %v", err)
	}

	heapBefore := collectedHeap()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	started := time.Now()
	cpuAtStart := cpuTime(usage())
	go informer.RunWithContext(ctx)
	<-informer.HasSyncedChecker().Done()
	syncedMs := float64(time.Since(started).Microseconds()) / 1000
	atSync := usage()
	cpuToSyncedMs := float64((cpuTime(atSync) - cpuAtStart).Microseconds()) / 1000
	peakRssMb := float64(atSync.Maxrss) * 1024 / 1e6
	objects := len(informer.GetStore().ListKeys())
	heapAfter := collectedHeap()
	line, _ := json.Marshal(synced{
		Objects:           objects,
		SyncedMs:          syncedMs,
		CPUToSyncedMs:     cpuToSyncedMs,
		PeakRssMb:         peakRssMb,
		RssAfterGcMb:      float64(residentBytes()) / 1e6,
		HeapAfterGcMb:     float64(heapAfter) / 1e6,
		HeapPerThousandMb: (float64(heapAfter) - float64(heapBefore)) / 1e6 / (float64(objects) / 1000),
	})
	cpuBefore := cpuTime(usage())
	os.Stdout.Write(append(line, '\n'))

	select {
	case <-allUpdated:
	case <-time.After(5 * time.Minute):
		fail("only %d of %d updates arrived", updates.Load(), expectedUpdates)
	}
	cpuAtEnd := cpuTime(usage())
	figures := updated{Updates: measuredUpdates}
	if warmupUpdates > 0 {
		warm := time.Duration(cpuAtWarm.Load())
		perWarmup := float64((warm - cpuBefore).Nanoseconds()) / 1000 / float64(warmupUpdates)
		figures.CPUPerWarmupUpdateMicro = &perWarmup
		figures.CPUPerUpdateMicro = float64((cpuAtEnd - warm).Nanoseconds()) / 1000 / float64(measuredUpdates)
	} else {
		figures.CPUPerUpdateMicro = float64((cpuAtEnd - cpuBefore).Nanoseconds()) / 1000 / float64(measuredUpdates)
	}
	line, _ = json.Marshal(figures)
	os.Stdout.Write(append(line, '\n'))
}
