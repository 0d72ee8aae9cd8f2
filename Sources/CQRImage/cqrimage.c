#include "cqrimage.h"

// jpeglib.h uses FILE without including stdio.h itself.
#include <stdio.h>

#include <jpeglib.h>
#include <png.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <zbar.h>

// A QR code photographed or screenshotted is far smaller; this bounds the memory a hostile file can ask for.
#define MAX_SIDE 16384

typedef struct {
    unsigned char *pixels;  // 8-bit grayscale, row after row
    unsigned width, height;
} gray_image;

static int too_large(unsigned width, unsigned height, char *error, size_t error_length) {
    if (width == 0 || height == 0 || width > MAX_SIDE || height > MAX_SIDE) {
        snprintf(error, error_length, "the image is %ux%u pixels; at most %ux%u are read", width, height, MAX_SIDE, MAX_SIDE);
        return 1;
    }
    return 0;
}

static int load_png(const char *path, gray_image *out, char *error, size_t error_length) {
    png_image image;
    memset(&image, 0, sizeof image);
    image.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_file(&image, path)) {
        snprintf(error, error_length, "not a readable PNG image: %s", image.message);
        return -1;
    }
    if (too_large(image.width, image.height, error, error_length)) {
        png_image_free(&image);
        return -1;
    }
    image.format = PNG_FORMAT_GRAY;
    out->pixels = malloc(PNG_IMAGE_SIZE(image));
    if (!out->pixels) {
        png_image_free(&image);
        snprintf(error, error_length, "out of memory");
        return -1;
    }
    // Transparent pixels become white, the usual background of a QR code.
    png_color white = {255, 255, 255};
    if (!png_image_finish_read(&image, &white, out->pixels, 0, NULL)) {
        snprintf(error, error_length, "not a readable PNG image: %s", image.message);
        free(out->pixels);
        out->pixels = NULL;
        return -1;
    }
    out->width = image.width;
    out->height = image.height;
    return 0;
}

typedef struct {
    struct jpeg_error_mgr manager;
    jmp_buf jump;
    char message[JMSG_LENGTH_MAX];
} jpeg_failure;

static void jpeg_fail(j_common_ptr info) {
    jpeg_failure *failure = (jpeg_failure *)info->err;
    (*info->err->format_message)(info, failure->message);
    longjmp(failure->jump, 1);
}

static int load_jpeg(const char *path, gray_image *out, char *error, size_t error_length) {
    FILE *file = fopen(path, "rb");
    if (!file) {
        snprintf(error, error_length, "cannot open the image");
        return -1;
    }
    struct jpeg_decompress_struct info;
    jpeg_failure failure;
    info.err = jpeg_std_error(&failure.manager);
    failure.manager.error_exit = jpeg_fail;
    if (setjmp(failure.jump)) {
        jpeg_destroy_decompress(&info);
        fclose(file);
        free(out->pixels);
        out->pixels = NULL;
        snprintf(error, error_length, "not a readable JPEG image: %s", failure.message);
        return -1;
    }
    jpeg_create_decompress(&info);
    jpeg_stdio_src(&info, file);
    jpeg_read_header(&info, TRUE);
    info.out_color_space = JCS_GRAYSCALE;
    if (too_large(info.image_width, info.image_height, error, error_length)) {
        jpeg_destroy_decompress(&info);
        fclose(file);
        return -1;
    }
    jpeg_start_decompress(&info);
    out->width = info.output_width;
    out->height = info.output_height;
    out->pixels = malloc((size_t)out->width * out->height);
    if (!out->pixels) {
        jpeg_destroy_decompress(&info);
        fclose(file);
        snprintf(error, error_length, "out of memory");
        return -1;
    }
    while (info.output_scanline < info.output_height) {
        JSAMPROW row = out->pixels + (size_t)info.output_scanline * out->width;
        jpeg_read_scanlines(&info, &row, 1);
    }
    jpeg_finish_decompress(&info);
    jpeg_destroy_decompress(&info);
    fclose(file);
    return 0;
}

static int load(const char *path, gray_image *out, char *error, size_t error_length) {
    unsigned char magic[4] = {0};
    FILE *file = fopen(path, "rb");
    if (!file) {
        snprintf(error, error_length, "cannot open the image");
        return -1;
    }
    size_t read = fread(magic, 1, sizeof magic, file);
    fclose(file);
    if (read >= 4 && memcmp(magic, "\x89PNG", 4) == 0) return load_png(path, out, error, error_length);
    if (read >= 3 && memcmp(magic, "\xFF\xD8\xFF", 3) == 0) return load_jpeg(path, out, error, error_length);
    snprintf(error, error_length, "not a PNG or JPEG image");
    return -1;
}

int cqr_decode_file(const char *path, char **text, char *error, size_t error_length) {
    *text = NULL;
    gray_image image = {0};
    if (load(path, &image, error, error_length) != 0) return -1;

    zbar_image_scanner_t *scanner = zbar_image_scanner_create();
    zbar_image_scanner_set_config(scanner, 0, ZBAR_CFG_ENABLE, 0);
    zbar_image_scanner_set_config(scanner, ZBAR_QRCODE, ZBAR_CFG_ENABLE, 1);
    zbar_image_t *zimage = zbar_image_create();
    zbar_image_set_format(zimage, zbar_fourcc('Y', '8', '0', '0'));
    zbar_image_set_size(zimage, image.width, image.height);
    zbar_image_set_data(zimage, image.pixels, (unsigned long)image.width * image.height, zbar_image_free_data);

    int found = 0;
    if (zbar_scan_image(scanner, zimage) < 0) {
        snprintf(error, error_length, "the QR decoder failed on the image");
        found = -1;
    } else {
        for (const zbar_symbol_t *symbol = zbar_image_first_symbol(zimage); symbol; symbol = zbar_symbol_next(symbol)) {
            if (zbar_symbol_get_type(symbol) != ZBAR_QRCODE) continue;
            if (found++ == 0) {
                unsigned length = zbar_symbol_get_data_length(symbol);
                *text = malloc(length + 1);
                if (*text) {
                    memcpy(*text, zbar_symbol_get_data(symbol), length);
                    (*text)[length] = 0;
                }
            }
        }
    }
    zbar_image_destroy(zimage);
    zbar_image_scanner_destroy(scanner);
    return found;
}
