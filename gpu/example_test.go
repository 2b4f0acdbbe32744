package gpu_test

import (
	"errors"
	"fmt"
	"log"

	"github.com/vkdml/vkdml/gpu"
)

// Example shows a buffer's life: written, read back, freed, and refused
// after that. (It has no checked output, since it needs a Vulkan device.)
func Example() {
	d, err := gpu.Open(gpu.Options{PipelineCacheDir: "off"})
	if err != nil {
		log.Fatal(err) // errors.Is(err, gpu.ErrNoLoader) or gpu.ErrNoDevice without Vulkan
	}
	defer d.Close()
	fmt.Println(d.Info.Name, "through", gpu.LoaderLibrary())

	b, err := d.NewBuffer(1024)
	if err != nil {
		log.Fatal(err)
	}
	if err := b.Write(0, []byte("hello")); err != nil {
		log.Fatal(err)
	}
	out := make([]byte, 5)
	if err := b.Read(0, out); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s\n", out)

	b.Free()
	err = b.Write(0, []byte("again"))
	fmt.Println(errors.Is(err, gpu.ErrReleased))
}
