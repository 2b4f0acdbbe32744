//go:build ignore

// gen compiles the variant table into spv/ with glslc, or with -check
// verifies that spv/ is exactly what the table and sources produce and that
// every module passes spirv-val. -only REGEXP limits either to the
// variants whose names match (and leaves other files in spv/ alone): a
// whole build takes minutes on two cores, one variant seconds, while a
// kernel is being changed; commit after a whole `make shaders`.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"sync"

	"github.com/vkdml/vkdml/shaders"
	"github.com/vkdml/vkdml/shaders/spirv"
)

func main() {
	check := flag.Bool("check", false, "verify spv/ instead of writing it")
	glslc := flag.String("glslc", "glslc", "the glslc binary")
	val := flag.String("spirv-val", "spirv-val", "the spirv-val binary")
	only := flag.String("only", "", "a regexp: compile (or check) only the variants whose names match")
	flag.Parse()
	variants := shaders.Variants
	if *only != "" {
		re, err := regexp.Compile(*only)
		if err != nil {
			fmt.Fprintln(os.Stderr, "shaders: -only:", err)
			os.Exit(2)
		}
		variants = nil
		for _, v := range shaders.Variants {
			if re.MatchString(v.Name) {
				variants = append(variants, v)
			}
		}
		if len(variants) == 0 {
			fmt.Fprintf(os.Stderr, "shaders: -only %q matches no variant\n", *only)
			os.Exit(2)
		}
	}
	if err := run(variants, *only == "", *check, *glslc, *val); err != nil {
		fmt.Fprintln(os.Stderr, "shaders:", err)
		os.Exit(1)
	}
}

// compile builds variant v into out. -g keeps the OpNames that
// shaders.CheckKernel holds the variant table's names to (-O alone strips
// them); spirv.StripSource then drops what else -g adds, the source text
// and line information, so the code is exactly -O's.
func compile(glslc string, v shaders.Variant, out string) error {
	args := []string{"--target-env=" + shaders.TargetEnv, "-O", "-g", "-I", "."}
	for _, d := range v.Defines {
		args = append(args, "-D"+d)
	}
	args = append(args, v.Source, "-o", out)
	cmd := exec.Command(glslc, args...)
	if msg, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%s: glslc %s: %v\n%s", v.Name, strings.Join(args, " "), err, msg)
	}
	code, err := os.ReadFile(out)
	if err == nil {
		code, err = spirv.StripSource(code)
	}
	if err == nil && v.FloatControls32 {
		code, err = spirv.AddFloatControls32(code, v.RoundingRTE32)
	}
	if err == nil {
		err = os.WriteFile(out, code, 0o644)
	}
	if err != nil {
		return fmt.Errorf("%s: stripping the source from %s (or adding its float controls): %w", v.Name, out, err)
	}
	return nil
}

// run compiles variants; all says they are the whole table, whose
// absent names are stale files in spv/.
func run(variants []shaders.Variant, all, check bool, glslc, val string) error {
	tmp, err := os.MkdirTemp("", "vkdml-spv-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)

	// Compile every variant into tmp, a few at a time.
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		errs []string
		sem  = make(chan struct{}, runtime.NumCPU())
	)
	for _, v := range variants {
		wg.Add(1)
		go func(v shaders.Variant) {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			if err := compile(glslc, v, filepath.Join(tmp, v.Name+".spv")); err != nil {
				mu.Lock()
				errs = append(errs, err.Error())
				mu.Unlock()
			}
		}(v)
	}
	wg.Wait()
	if len(errs) > 0 {
		sort.Strings(errs)
		return fmt.Errorf("%d variant(s) failed to compile:\n%s", len(errs), strings.Join(errs, "\n"))
	}

	want := map[string]bool{}
	for _, v := range variants {
		want[v.Name+".spv"] = true
	}
	have, _ := filepath.Glob("spv/*.spv")
	if !all {
		have = nil
	}
	var problems []string
	for _, f := range have {
		if !want[filepath.Base(f)] {
			if check {
				problems = append(problems, f+": not in the variant table")
			} else if err := os.Remove(f); err != nil {
				return err
			}
		}
	}
	for _, v := range variants {
		fresh, err := os.ReadFile(filepath.Join(tmp, v.Name+".spv"))
		if err != nil {
			return err
		}
		path := filepath.Join("spv", v.Name+".spv")
		old, err := os.ReadFile(path)
		switch {
		case check && err != nil:
			problems = append(problems, path+": missing (run make shaders)")
			continue
		case check && !bytes.Equal(old, fresh):
			problems = append(problems, path+": stale, differs from its source (run make shaders)")
		case !check && !bytes.Equal(old, fresh):
			if err := os.WriteFile(path, fresh, 0o644); err != nil {
				return err
			}
		}
		if msg, err := exec.Command(val, "--target-env", shaders.TargetEnv, path).CombinedOutput(); err != nil {
			problems = append(problems, fmt.Sprintf("%s: spirv-val: %v\n%s", path, err, msg))
		}
	}
	if len(problems) > 0 {
		return fmt.Errorf("%d problem(s):\n%s", len(problems), strings.Join(problems, "\n"))
	}
	if check {
		fmt.Printf("shaders: %d variants fresh and valid\n", len(variants))
	} else {
		fmt.Printf("shaders: %d variants compiled\n", len(variants))
	}
	return nil
}
