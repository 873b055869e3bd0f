// Package webfetch gives a model the web_fetch tool, Claude Code's
// WebFetch: it fetches one URL and returns the page as Markdown.
//
// The model gives a url and a prompt, what it looks for. The page is read
// as Markdown (HTML converted by github.com/JohannesKaufmann/html-to-markdown;
// plain text, Markdown and JSON as they are). As in Claude Code, a small
// model (Options.Model) reads it and answers the prompt, and the calling
// model reads that answer, so a long page does not fill its context; the
// small model's tokens count for the calling evaluation. Without
// Options.Model, or when the small model fails, the calling model reads
// the page itself, headed by the prompt. Other content types (images,
// PDFs, archives) are refused with words the model reads.
//
// It is bounded: 30 seconds for the whole fetch (Options.Timeout), at most
// 5 MiB of body read (Options.MaxBytes; the rest is cut, and the model is
// told), 100,000 characters of Markdown returned, at most 5 redirects.
// A redirect is followed only on the same host (or between a name and its
// www. form): a redirect to another host is returned to the model as the
// new URL, for it to fetch with a call of its own — which permission
// rules such as WebFetch(domain:example.com) then see, since they match
// the call's url argument.
//
// It reaches only the public internet. Every address a name resolves to
// is checked after resolution and the connection made to that checked
// address, so a name cannot point inside and a DNS answer that changes
// between check and connect changes nothing: loopback, private (10/8,
// 172.16/12, 192.168/16, fc00::/7), link-local (169.254/16, fe80::/10),
// shared CGNAT (100.64/10), unspecified, multicast, broadcast and
// reserved addresses are refused, IPv4-mapped and NAT64 forms of them
// too, unless Options.Allow lists them (tests allow 127.0.0.0/8). Only
// http and https URLs are fetched, never with a user name or password in
// them; no proxy from the environment is used, no cookies are kept or
// sent, and the request carries no credentials, only a User-Agent naming
// offshoot.
//
// The tool is opt-in: a program adds it to an agent's tools itself
// (offshoot run and chat do with --allow webfetch). Claude Code agent
// definitions that list WebFetch get it when the program offers it.
package webfetch
