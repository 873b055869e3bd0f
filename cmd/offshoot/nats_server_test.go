package main

import (
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// natsServer is the nats-server helper of the scripts: a JetStream
// server on a free loopback port, its store in the directory of its
// first argument, its URL written to its second once it is ready; it runs
// until it is interrupted or killed.
//
//	nats-server STOREDIR URLFILE
func natsServer() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: nats-server STOREDIR URLFILE")
		os.Exit(2)
	}
	s, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: -1, JetStream: true, StoreDir: os.Args[1], NoLog: true, NoSigs: true})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	go s.Start()
	if !s.ReadyForConnections(time.Minute) {
		fmt.Fprintln(os.Stderr, "the NATS server did not start")
		os.Exit(1)
	}
	if err := os.WriteFile(os.Args[2], []byte(s.ClientURL()+"\n"), 0o600); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, os.Interrupt, syscall.SIGTERM)
	<-stop
	s.Shutdown()
}
