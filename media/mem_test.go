package media_test

import (
	"testing"

	"github.com/commercekit/commerce/media"
	"github.com/commercekit/commerce/media/blobtest"
)

func TestMemory(t *testing.T) { blobtest.Run(t, media.NewMemory()) }
