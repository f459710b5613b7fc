#!/usr/bin/env python3
"""Renders conversations with tools through Qwen2.5-Coder-0.5B-Instruct's own chat template
(read from the GGUF file with the `gguf` package, evaluated by `jinja2` with transformers'
`tojson`), as the reference for ChatTemplateToolTests. Writes qwen_tools_*.txt beside itself.
Usage: python3 render_qwen_tools.py ../../../Weights/Qwen2.5-Coder-0.5B-Instruct.gguf"""
import json, os, sys
import gguf, jinja2

reader = gguf.GGUFReader(sys.argv[1])
field = reader.fields["tokenizer.chat_template"]
source = bytes(field.parts[field.data[0]]).decode()
env = jinja2.Environment(trim_blocks=True, lstrip_blocks=True)
env.filters["tojson"] = lambda x: json.dumps(x, ensure_ascii=False)  # transformers' tojson
template = env.from_string(source)

tools = [{"type": "function", "function": {
    "name": "getWeather", "description": "Gets the weather of a city.",
    "parameters": {"type": "object", "properties": {"city": {"type": "string", "description": "The city"}},
                   "required": ["city"]}}}]
call = lambda city: {"type": "function", "function": {"name": "getWeather", "arguments": {"city": city}}}
conversation = [
    {"role": "system", "content": "Help with the weather."},
    {"role": "user", "content": "Weather in Paris and Oslo?"},
    {"role": "assistant", "content": "", "tool_calls": [call("Paris"), call("Oslo")]},
    {"role": "tool", "content": "Sunny in Paris"},
    {"role": "tool", "content": "Rain in Oslo"},
    {"role": "assistant", "content": "Sunny in Paris, rain in Oslo."},
    {"role": "user", "content": "Thanks!"},
]
cases = {
    "qwen_tools_conversation.txt": dict(messages=conversation, tools=tools),
    "qwen_tools_default_system.txt": dict(messages=conversation[1:2], tools=tools),
    "qwen_no_tools_default_system.txt": dict(messages=conversation[1:2], tools=None),
}
here = os.path.dirname(os.path.abspath(__file__))
for name, args in cases.items():
    text = template.render(add_generation_prompt=True, **args)
    with open(os.path.join(here, name), "w") as f:
        f.write(text)
    print(name, len(text))
