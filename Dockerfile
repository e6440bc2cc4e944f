# CineCap Studio web app: self-hosting and the Hugging Face Spaces Docker SDK.
#   docker build -t cinecap-studio .
#   docker run -p 7860:7860 -v cinecap-data:/data cinecap-studio
# PostgreSQL instead of the SQLite file in the volume: -e DATABASE_URL=postgresql+psycopg://…
# The detector files (docs/models.md) are fetched, verified, on the first start into
# /home/user/.cache/cinecap/models; -v cinecap-models:/home/user/.cache/cinecap/models keeps them,
# -e CINECAP_FETCH_MODELS=never with -e CINECAP_MODELS_DIR=/models (a mounted copy) for offline.
FROM python:3.11-slim

# CPU wheels of torch/torchvision by default (the pins in requirements.txt match +cpu builds);
# pass --build-arg TORCH_INDEX=https://download.pytorch.org/whl/cu128 for a CUDA image.
ARG TORCH_INDEX=https://download.pytorch.org/whl/cpu

ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 GRADIO_ANALYTICS_ENABLED=False \
    CINECAP_DATA_DIR=/data GRADIO_SERVER_NAME=0.0.0.0 GRADIO_SERVER_PORT=7860

# OpenCV-headless and decord need glib and OpenMP at run time; PyAV bundles its own FFmpeg.
RUN apt-get update && apt-get install -y --no-install-recommends libglib2.0-0 libgomp1 \
    && rm -rf /var/lib/apt/lists/*

# Spaces runs containers as uid 1000; so do we, anywhere.
# The model cache exists in the image, so a volume mounted there is uid 1000's to write.
RUN useradd --create-home --uid 1000 user && mkdir -p /data && chown user:user /data \
    && mkdir -p /home/user/.cache/cinecap/models && chown -R user:user /home/user/.cache
WORKDIR /home/user/app

COPY --chown=user:user requirements.txt ./
RUN pip install --extra-index-url "$TORCH_INDEX" -r requirements.txt

COPY --chown=user:user pyproject.toml app.py ./
COPY --chown=user:user cinecap ./cinecap
COPY --chown=user:user db ./db
COPY --chown=user:user ui ./ui

USER user
VOLUME ["/data"]
EXPOSE 7860
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s \
    CMD python -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:7860/', timeout=4)"
CMD ["python", "app.py"]
